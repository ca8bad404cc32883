import { Type, type Static, type TSchema } from 'typebox';
import { ApiError, invalidId } from '../../errors';
import type { DocumentRecord, UserRecord } from '../../domain';
import { pagedReply, pageOf, paginationQuery } from '../../http/pagination';
import type { Method, Reply, RequestContext, RouteDef } from '../../http/route';
import * as documents from '../../services/documents';
import { documentView, preferenceView, userView, type Dialect } from './dialect';
import { parseFields, type DocumentField } from './fields';
import { documentBody, fieldsQuery, metaSchema, nullableString, onlyIf } from './schemas';

/**
 * Route factories shared by every version: each takes the version's dialect (and the few
 * per-version differences the spec lists) and returns a route-table row.
 */

/** What a request holds once its schema passed: the schema's type, or nothing known without one. */
type Validated<S, Unvalidated> = S extends TSchema ? Static<S> : Unvalidated;
export type Handler<Q = undefined, B = undefined> =
  (req: RequestContext<Validated<Q, Record<string, unknown>>, Validated<B, unknown>>) => Promise<Reply>;

/**
 * A route-table row. The handler's `req.query` and `req.body` are typed by the schemas given here, which
 * dispatch validates (and coerces) before the handler runs: the one place where that guarantee becomes a type.
 */
export function route<Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  method: Method, path: string, handle: Handler<Q, B>, schemas: { query?: Q; body?: B } = {},
): RouteDef {
  return { method, path, handle: handle as RouteDef['handle'], ...schemas };
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent: Reply = { status: 204 };

export const jsonError = (error: ApiError): Reply => ({ status: error.status, body: { message: error.message }, headers: error.headers });
export const apiPathNotFound = () => new ApiError(404, 'API path not found', {}, 'route_not_found');

export async function documentViews(d: Dialect, req: RequestContext, docs: DocumentRecord[], fields: Set<DocumentField>) {
  const tagIds = fields.has('tags') ? await req.tenant.documents.tagIdsOf(docs.map((doc) => doc.id)) : undefined;
  return docs.map((doc) => documentView(d, doc, fields, tagIds?.get(doc.id)));
}

const paged = Type.Object(paginationQuery);
const withFields = Type.Object({ fields: Type.Optional(fieldsQuery) });

/** Turns a path id into the stored id; v2 accepts only integers. */
export type IdParam = (raw: string) => string;
export const anyId: IdParam = (raw) => raw;
export const integerId: IdParam = (raw) => {
  if (!documents.isNumberedId(raw)) throw invalidId();
  return raw;
};

export interface DocumentRoutesOptions {
  d: Dialect;
  idParam?: IdParam;
  listDefault: readonly DocumentField[];
  withPublishedAt: boolean;
  /** Status of a successful read / delete (v2 answers 201). */
  readStatus?: number;
  deleteStatus?: number;
  /** Whether clients may choose ids (not in v2, which generates integers). */
  clientIds: boolean;
  /** Extra handling of GET /documents before the plain listing (v5/v3/v2 keyword search). */
  listOverride?: (req: RequestContext<DocumentListQuery>) => Promise<Reply | undefined>;
  /** Whether GET /documents takes `keywords` (v5, v3, v2). */
  keywordListing?: boolean;
  createDocument?: (req: RequestContext, input: documents.DocumentInput) => Promise<DocumentRecord>;
}

const documentListQuery = (keywordListing: boolean) => Type.Object({
  ...paginationQuery,
  fields: Type.Optional(fieldsQuery),
  ...onlyIf(keywordListing, { keywords: Type.Optional(Type.String()), keywords_fields: Type.Optional(Type.String()) }),
});
export type DocumentListQuery = Static<ReturnType<typeof documentListQuery>>;

export function documentRoutes(o: DocumentRoutesOptions): RouteDef[] {
  const { d } = o;
  const id = o.idParam ?? anyId;
  const body = documentBody(o.withPublishedAt);
  // A version without published_at ignores it in bodies, as it ignores any unknown parameter.
  const input = ({ text, meta, published_at }: Static<typeof body>): documents.DocumentInput =>
    (o.withPublishedAt ? { text, meta, published_at } : { text, meta });
  const routes: RouteDef[] = [
    route('GET', '/documents', async (req) => {
      const override = await o.listOverride?.(req);
      if (override) return override;
      const fields = parseFields(req.query.fields, d.fields, o.listDefault);
      const page = pageOf(req.query);
      const list = await req.tenant.documents.listDocuments(page);
      return pagedReply(req, await documentViews(d, req, list.items, fields), list.total, page);
    }, { query: documentListQuery(o.keywordListing ?? false) }),
    route('POST', '/documents', async (req) => {
      const created = o.createDocument ? await o.createDocument(req, input(req.body)) : await req.tenant.documents.createDocument(input(req.body));
      return ok(documentView(d, created, d.fullDocument), 201);
    }, { body }),
    route('GET', '/documents/:id', async (req) => {
      const fields = parseFields(req.query.fields, d.fields, [...d.fullDocument]);
      const [view] = await documentViews(d, req, [await req.tenant.documents.getDocument(id(req.params.id))], fields);
      return ok(view, o.readStatus);
    }, { query: withFields }),
    route('PUT', '/documents/:id', async (req) =>
      ok(documentView(d, await req.tenant.documents.updateDocument(id(req.params.id), input(req.body)), d.fullDocument)), { body }),
    route('DELETE', '/documents/:id', async (req) =>
      ok(documentView(d, await req.tenant.documents.deleteDocument(id(req.params.id)), d.fullDocument), o.deleteStatus)),
    route('GET', '/documents/:id/preferences', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.documents.preferencesOfDocument(id(req.params.id), page);
      return pagedReply(req, list.items.map((p) => preferenceView(d, p)), list.total, page);
    }, { query: paged }),
  ];
  if (o.clientIds) {
    routes.push(route('POST', '/documents/:id', async (req) =>
      ok(documentView(d, await req.tenant.documents.createDocument(input(req.body), req.params.id), d.fullDocument), 201), { body }));
  }
  return routes;
}

export function documentIdsRoute(): RouteDef {
  return route('GET', '/documents/ids', async (req) => ok(await req.tenant.documents.documentIds()));
}

export interface TagRoutesOptions {
  d: Dialect;
  /** v6: tags carry type and meta (body, type filter, PUT). */
  typed: boolean;
  tagDocumentsDefault: readonly DocumentField[];
}

export function tagRoutes(o: TagRoutesOptions): RouteDef[] {
  const { d } = o;
  // Untyped versions (v5) take no tag body at all.
  const tagSchemas = onlyIf(o.typed, { body: Type.Object({ meta: Type.Optional(metaSchema), type: Type.Optional(nullableString) }) });
  const listQuery = Type.Object({ ...paginationQuery, ...onlyIf(o.typed, { type: Type.Optional(Type.String()) }) });
  const routes: RouteDef[] = [
    route('GET', '/documents/:id/tags', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.documents.tagsOfDocument(req.params.id, page);
      return pagedReply(req, list.items.map(d.tag), list.total, page);
    }, { query: paged }),
    route('POST', '/documents/:document_id/tags/:tag_id', async (req) => {
      await req.tenant.tags.tagDocument(req.params.document_id, req.params.tag_id);
      return noContent;
    }),
    route('DELETE', '/documents/:document_id/tags/:tag_id', async (req) => {
      await req.tenant.tags.untagDocument(req.params.document_id, req.params.tag_id);
      return noContent;
    }),
    route('GET', '/tags', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.tags.listTags(page, o.typed ? req.query.type : undefined);
      return pagedReply(req, list.items.map(d.tag), list.total, page);
    }, { query: listQuery }),
    route('POST', '/tags', async (req) => ok(d.tag(await req.tenant.tags.createTag(o.typed ? req.body : {})), 201), tagSchemas),
    route('POST', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.createTag(o.typed ? req.body : {}, req.params.id)), 201), tagSchemas),
    route('GET', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.getTag(req.params.id)))),
    route('DELETE', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.deleteTag(req.params.id)))),
    route('GET', '/tags/:id/documents', async (req) => {
      const fields = parseFields(req.query.fields, d.fields, o.tagDocumentsDefault);
      return ok(await documentViews(d, req, await req.tenant.tags.documentsOfTag(req.params.id), fields));
    }, { query: withFields }),
  ];
  if (o.typed) {
    routes.push(route('PUT', '/tags/:id', async (req) => ok(d.tag(await req.tenant.tags.updateTag(req.params.id, req.body))), tagSchemas));
  }
  return routes;
}

export interface UserRoutesOptions {
  d: Dialect;
  idParam?: IdParam;
  clientIds: boolean;
  mergeInto: boolean;
  deleteStatus?: number;
  createUser?: (req: RequestContext) => Promise<UserRecord>;
}

export function userRoutes(o: UserRoutesOptions): RouteDef[] {
  const { d } = o;
  const id = o.idParam ?? anyId;
  const create = o.createUser ?? ((req: RequestContext) => req.tenant.users.createUser());
  const routes: RouteDef[] = [
    route('GET', '/users', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.users.listUsers(page);
      return pagedReply(req, list.items.map((u) => userView(d, u)), list.total, page);
    }, { query: paged }),
    route('POST', '/users', async (req) => ok(userView(d, await create(req)), 201)),
    // The spec gives 201 for reading a user or a preference; clients of the original may check for it.
    route('GET', '/users/:id', async (req) => ok(userView(d, await req.tenant.users.getUser(id(req.params.id))), 201)),
    route('DELETE', '/users/:id', async (req) => {
      const mergeInto = o.mergeInto ? req.query.merge_into : undefined;
      const deleted = await req.tenant.users.deleteUser(id(req.params.id), mergeInto);
      const view = userView(d, deleted);
      return ok(deleted.merged_into === undefined ? view : { ...view, merged_into: d.id(deleted.merged_into) }, o.deleteStatus);
    }, { query: Type.Object(onlyIf(o.mergeInto, { merge_into: Type.Optional(Type.String()) })) }),
    route('GET', '/users/:id/preferences', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.users.preferencesOfUser(id(req.params.id), page);
      return pagedReply(req, list.items.map((p) => preferenceView(d, p)), list.total, page);
    }, { query: paged }),
    route('GET', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.getPreference(id(req.params.user_id), id(req.params.document_id))), 201)),
    route('POST', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.addPreference(id(req.params.user_id), id(req.params.document_id))), 201)),
    route('DELETE', '/users/:user_id/preferences/:document_id', async (req) =>
      ok(preferenceView(d, await req.tenant.users.deletePreference(id(req.params.user_id), id(req.params.document_id))))),
  ];
  if (o.clientIds) routes.push(route('POST', '/users/:id', async (req) => ok(userView(d, await req.tenant.users.createUser(req.params.id)), 201)));
  return routes;
}
