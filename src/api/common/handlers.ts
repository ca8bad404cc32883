import { Type } from 'typebox';
import { KindredError } from '../../errors';
import type { DocumentRecord } from '../../domain';
import { pagedReply, pageOf, paginationQuery } from '../../http/pagination';
import { noContent, ok, route, type RouteDef } from '../../http/route';
import { showDocument, type DocumentField } from '../../services/shown';
import { documentView, preferenceView, userView, type Dialect } from './dialect';
import { parseFields } from './fields';
import { documentBody, fieldsQuery, metaSchema, nullableString, onlyIf } from './schemas';
import { deletedUserResponse, documentList, documentResponse, idsResponse, preferenceResponse, tagResponse, userResponse } from './responses';

/**
 * Route factories shared by every version: each takes the version's dialect (and the few per-version
 * differences the spec lists) and returns route-table rows. A route is its schemas, one service call and a
 * mapper into the version's shape.
 */

export const apiPathNotFound = (): KindredError => new KindredError('route_not_found', 'API path not found');

/** A written document as the version shows one (every field but tags). */
const writtenView = (d: Dialect, doc: DocumentRecord) => documentView(d, showDocument(doc, d.fullDocument));

const paged = Type.Object(paginationQuery);
const withFields = Type.Object({ fields: Type.Optional(fieldsQuery) });

export interface DocumentRoutesOptions {
  d: Dialect;
  listDefault: readonly DocumentField[];
  withPublishedAt: boolean;
  /** Status of a successful read / delete (v2 answers 201). */
  readStatus?: number;
  deleteStatus?: number;
  /** Whether clients may choose ids (not in v2, which generates integers). */
  clientIds: boolean;
  /** Whether GET /documents takes `keywords` (v5, v3, v2): the 25 most relevant documents instead of a page. */
  keywordListing: boolean;
}

const documentListQuery = (keywordListing: boolean) =>
  onlyIf(keywordListing, { keywords: Type.Optional(Type.String()), keywords_fields: Type.Optional(Type.String()) }, { ...paginationQuery, fields: Type.Optional(fieldsQuery) });

/** Which indexed fields `keywords` searches, as `keywords_fields` lists them. */
const keywordFields = (raw: string | undefined): string[] => (raw ?? 'text,meta.title').split(',').map((s) => s.trim()).filter(Boolean);

export function documentRoutes(o: DocumentRoutesOptions): RouteDef[] {
  const { d } = o;
  const { scope } = d;
  const body = documentBody(o.withPublishedAt);
  const one = documentResponse(d);
  const readStatus = o.readStatus ?? 200;
  const deleteStatus = o.deleteStatus ?? 200;
  const routes: RouteDef[] = [
    route('GET', '/documents', async (req) => {
      const { query } = req;
      const page = pageOf(query);
      const list = await req.tenant.documents.listDocuments({
        scope, page, fields: parseFields(query.fields, d.fields, o.listDefault),
        keywords: 'keywords' in query && query.keywords !== undefined ? { words: query.keywords, fields: keywordFields(query.keywords_fields) } : undefined,
      });
      const views = list.items.map((doc) => documentView(d, doc));
      return list.paged ? pagedReply(req, views, list.total, page) : ok(views);
    }, { query: documentListQuery(o.keywordListing), responses: { 200: documentList(d) } }),
    route('POST', '/documents', async (req) =>
      ok(writtenView(d, await req.tenant.documents.createDocument(req.body, { scope })), 201), { body, responses: { 201: one } }),
    route('GET', '/documents/:id', async (req) => {
      const fields = parseFields(req.query.fields, d.fields, [...d.fullDocument]);
      return ok(documentView(d, await req.tenant.documents.readDocument(req.params.id, { scope, fields })), readStatus);
    }, { query: withFields, responses: { [readStatus]: one } }),
    route('PUT', '/documents/:id', async (req) =>
      ok(writtenView(d, await req.tenant.documents.updateDocument(req.params.id, req.body, { scope }))), { body, responses: { 200: one } }),
    route('DELETE', '/documents/:id', async (req) =>
      ok(writtenView(d, await req.tenant.documents.deleteDocument(req.params.id, scope)), deleteStatus), { responses: { [deleteStatus]: one } }),
    route('GET', '/documents/:id/preferences', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.documents.preferencesOfDocument(req.params.id, page, scope);
      return pagedReply(req, list.items.map((p) => preferenceView(d, p)), list.total, page);
    }, { query: paged, responses: { 200: Type.Array(preferenceResponse(d)) } }),
  ];
  if (o.clientIds) {
    routes.push(route('POST', '/documents/:id', async (req) =>
      ok(writtenView(d, await req.tenant.documents.createDocument(req.body, { id: req.params.id, scope })), 201), { body, responses: { 201: one } }));
  }
  return routes;
}

export function documentIdsRoute(): RouteDef {
  return route('GET', '/documents/ids', async (req) => ok(await req.tenant.documents.documentIds()), { responses: { 200: idsResponse } });
}

export interface TagRoutesOptions {
  d: Dialect;
  /** v6: tags carry type and meta (body, type filter, PUT). */
  typed: boolean;
  tagDocumentsDefault: readonly DocumentField[];
}

export function tagRoutes(o: TagRoutesOptions): RouteDef[] {
  const { d } = o;
  // Untyped versions (v5) take nothing in a tag body.
  const tagSchemas = { body: onlyIf(o.typed, { meta: Type.Optional(metaSchema), type: Type.Optional(nullableString) }, {}) };
  const listQuery = onlyIf(o.typed, { type: Type.Optional(Type.String()) }, paginationQuery);
  const tag = tagResponse(o.typed);
  const tags = Type.Array(tag);
  const routes: RouteDef[] = [
    route('GET', '/documents/:id/tags', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.documents.tagsOfDocument(req.params.id, page);
      return pagedReply(req, list.items.map(d.tag), list.total, page);
    }, { query: paged, responses: { 200: tags } }),
    route('POST', '/documents/:document_id/tags/:tag_id', async (req) => {
      await req.tenant.tags.tagDocument(req.params.document_id, req.params.tag_id);
      return noContent;
    }, { responses: { 204: Type.Null() } }),
    route('DELETE', '/documents/:document_id/tags/:tag_id', async (req) => {
      await req.tenant.tags.untagDocument(req.params.document_id, req.params.tag_id);
      return noContent;
    }, { responses: { 204: Type.Null() } }),
    route('GET', '/tags', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.tags.listTags(page, 'type' in req.query ? req.query.type : undefined);
      return pagedReply(req, list.items.map(d.tag), list.total, page);
    }, { query: listQuery, responses: { 200: tags } }),
    route('POST', '/tags', async (req) => ok(d.tag(await req.tenant.tags.createTag(req.body)), 201), { ...tagSchemas, responses: { 201: tag } }),
    route('POST', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.createTag(req.body, req.params.id)), 201), { ...tagSchemas, responses: { 201: tag } }),
    route('GET', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.getTag(req.params.id))), { responses: { 200: tag } }),
    route('DELETE', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.deleteTag(req.params.id))), { responses: { 200: tag } }),
    route('GET', '/tags/:id/documents', async (req) => {
      const fields = parseFields(req.query.fields, d.fields, o.tagDocumentsDefault);
      return ok((await req.tenant.tags.documentsOfTag(req.params.id, fields)).map((doc) => documentView(d, doc)));
    }, { query: withFields, responses: { 200: documentList(d) } }),
  ];
  if (o.typed) {
    routes.push(route('PUT', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.updateTag(req.params.id, req.body))), { ...tagSchemas, responses: { 200: tag } }));
  }
  return routes;
}

export interface UserRoutesOptions {
  d: Dialect;
  clientIds: boolean;
  mergeInto: boolean;
  deleteStatus?: number;
}

export function userRoutes(o: UserRoutesOptions): RouteDef[] {
  const { d } = o;
  const { scope } = d;
  const user = userResponse(d);
  const preference = preferenceResponse(d);
  const deleteStatus = o.deleteStatus ?? 200;
  const routes: RouteDef[] = [
    route('GET', '/users', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.users.listUsers(page);
      return pagedReply(req, list.items.map((u) => userView(d, u)), list.total, page);
    }, { query: paged, responses: { 200: Type.Array(user) } }),
    route('POST', '/users', async (req) => ok(userView(d, await req.tenant.users.createUser(undefined, scope)), 201), { responses: { 201: user } }),
    // The spec gives 201 for reading a user or a preference; clients of the original may check for it.
    route('GET', '/users/:id', async (req) => ok(userView(d, await req.tenant.users.getUser(req.params.id, scope)), 201), { responses: { 201: user } }),
    route('DELETE', '/users/:id', async (req) => {
      const { query } = req;
      const deleted = await req.tenant.users.deleteUser(req.params.id, 'merge_into' in query ? query.merge_into : undefined, scope);
      const view = userView(d, deleted);
      return ok(deleted.merged_into === undefined ? view : { ...view, merged_into: d.id(deleted.merged_into) }, deleteStatus);
    }, { query: onlyIf(o.mergeInto, { merge_into: Type.Optional(Type.String()) }, {}), responses: { [deleteStatus]: deletedUserResponse(d) } }),
    route('GET', '/users/:id/preferences', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.users.preferencesOfUser(req.params.id, page, scope);
      return pagedReply(req, list.items.map((p) => preferenceView(d, p)), list.total, page);
    }, { query: paged, responses: { 200: Type.Array(preference) } }),
    route('GET', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.getPreference(req.params.user_id, req.params.document_id, scope)), 201), { responses: { 201: preference } }),
    route('POST', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.addPreference(req.params.user_id, req.params.document_id, scope)), 201), { responses: { 201: preference } }),
    route('DELETE', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.deletePreference(req.params.user_id, req.params.document_id, scope))), { responses: { 200: preference } }),
  ];
  if (o.clientIds) routes.push(route('POST', '/users/:id', async (req) => ok(userView(d, await req.tenant.users.createUser(req.params.id, scope)), 201), { responses: { 201: user } }));
  return routes;
}
