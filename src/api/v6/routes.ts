import type { DocumentRecord } from '../../domain';
import { ApiError } from '../../errors';
import { pagedReply, pageOf, paginationQuery } from '../../http/pagination';
import type { ApiVersion, Reply, RequestContext, RouteDef } from '../../http/route';
import * as documents from '../../services/documents';
import * as tags from '../../services/tags';
import * as users from '../../services/users';
import { parseFields, type DocumentField } from '../common/fields';
import { documentBody, fieldsQuery, metaSchema, objectQuery } from '../common/schemas';
import { documentView, FULL_DOCUMENT, preferenceView, tagView, userView } from './views';

const FIELDS: readonly DocumentField[] = ['meta', 'text', 'published_at', 'tags'];
const DEFAULT_FIELDS: readonly DocumentField[] = ['meta', 'text'];

const ok = (body: unknown, status = 200): Reply => ({ status, body });
const noContent: Reply = { status: 204 };

async function documentViews(req: RequestContext, docs: DocumentRecord[], fields: Set<DocumentField>) {
  const tagIds = fields.has('tags') ? await documents.tagIdsOf(req.tenant, docs.map((d) => d.id)) : undefined;
  return docs.map((doc) => documentView(doc, fields, tagIds?.get(doc.id)));
}

const pagedFields = objectQuery({ ...paginationQuery, fields: fieldsQuery });
const paged = objectQuery(paginationQuery);
const tagBody = objectQuery({ meta: metaSchema, type: { type: ['string', 'null'] } });

export const v6Routes: RouteDef[] = [
  // Documents
  {
    method: 'GET', path: '/documents', query: pagedFields,
    async handle(req) {
      const fields = parseFields(req.query.fields, FIELDS, DEFAULT_FIELDS);
      const page = pageOf(req.query);
      const list = await documents.listDocuments(req.tenant, page);
      return pagedReply(req, await documentViews(req, list.items, fields), list.total, page);
    },
  },
  { method: 'GET', path: '/documents/ids', handle: async (req) => ok(await documents.documentIds(req.tenant)) },
  {
    method: 'POST', path: '/documents', body: documentBody(true),
    handle: async (req) => ok(documentView(await documents.createDocument(req.tenant, req.body as documents.DocumentInput), FULL_DOCUMENT), 201),
  },
  {
    method: 'POST', path: '/documents/:id', body: documentBody(true),
    handle: async (req) => ok(documentView(await documents.createDocument(req.tenant, req.body as documents.DocumentInput, req.params.id), FULL_DOCUMENT), 201),
  },
  {
    method: 'GET', path: '/documents/:id', query: objectQuery({ fields: fieldsQuery }),
    async handle(req) {
      const fields = parseFields(req.query.fields, FIELDS, [...FULL_DOCUMENT]);
      const [view] = await documentViews(req, [await documents.getDocument(req.tenant, req.params.id)], fields);
      return ok(view);
    },
  },
  {
    method: 'PUT', path: '/documents/:id', body: documentBody(true),
    handle: async (req) => ok(documentView(await documents.updateDocument(req.tenant, req.params.id, req.body as documents.DocumentInput), FULL_DOCUMENT)),
  },
  {
    method: 'DELETE', path: '/documents/:id',
    handle: async (req) => ok(documentView(await documents.deleteDocument(req.tenant, req.params.id), FULL_DOCUMENT)),
  },
  {
    method: 'GET', path: '/documents/:id/tags', query: paged,
    async handle(req) {
      const page = pageOf(req.query);
      const list = await documents.tagsOfDocument(req.tenant, req.params.id, page);
      return pagedReply(req, list.items.map(tagView), list.total, page);
    },
  },
  {
    method: 'GET', path: '/documents/:id/preferences', query: paged,
    async handle(req) {
      const page = pageOf(req.query);
      const list = await documents.preferencesOfDocument(req.tenant, req.params.id, page);
      return pagedReply(req, list.items.map(preferenceView), list.total, page);
    },
  },
  // Taggings
  {
    method: 'POST', path: '/documents/:document_id/tags/:tag_id',
    async handle(req) {
      await tags.tagDocument(req.tenant, req.params.document_id, req.params.tag_id);
      return noContent;
    },
  },
  {
    method: 'DELETE', path: '/documents/:document_id/tags/:tag_id',
    async handle(req) {
      await tags.untagDocument(req.tenant, req.params.document_id, req.params.tag_id);
      return noContent;
    },
  },
  // Tags
  {
    method: 'GET', path: '/tags', query: objectQuery({ ...paginationQuery, type: { type: 'string' } }),
    async handle(req) {
      const page = pageOf(req.query);
      const list = await tags.listTags(req.tenant, page, req.query.type as string | undefined);
      return pagedReply(req, list.items.map(tagView), list.total, page);
    },
  },
  { method: 'POST', path: '/tags', body: tagBody, handle: async (req) => ok(tagView(await tags.createTag(req.tenant, req.body as tags.TagInput)), 201) },
  { method: 'POST', path: '/tags/:id', body: tagBody, handle: async (req) => ok(tagView(await tags.createTag(req.tenant, req.body as tags.TagInput, req.params.id)), 201) },
  { method: 'GET', path: '/tags/:id', handle: async (req) => ok(tagView(await tags.getTag(req.tenant, req.params.id))) },
  { method: 'PUT', path: '/tags/:id', body: tagBody, handle: async (req) => ok(tagView(await tags.updateTag(req.tenant, req.params.id, req.body as tags.TagInput))) },
  { method: 'DELETE', path: '/tags/:id', handle: async (req) => ok(tagView(await tags.deleteTag(req.tenant, req.params.id))) },
  {
    method: 'GET', path: '/tags/:id/documents', query: objectQuery({ fields: fieldsQuery }),
    async handle(req) {
      const fields = parseFields(req.query.fields, FIELDS, DEFAULT_FIELDS);
      return ok(await documentViews(req, await tags.documentsOfTag(req.tenant, req.params.id), fields));
    },
  },
  // Users
  {
    method: 'GET', path: '/users', query: paged,
    async handle(req) {
      const page = pageOf(req.query);
      const list = await users.listUsers(req.tenant, page);
      return pagedReply(req, list.items.map(userView), list.total, page);
    },
  },
  { method: 'POST', path: '/users', handle: async (req) => ok(userView(await users.createUser(req.tenant)), 201) },
  { method: 'POST', path: '/users/:id', handle: async (req) => ok(userView(await users.createUser(req.tenant, req.params.id)), 201) },
  // The spec gives 201 for reading a user; clients of the original may check for it.
  { method: 'GET', path: '/users/:id', handle: async (req) => ok(userView(await users.getUser(req.tenant, req.params.id)), 201) },
  {
    method: 'DELETE', path: '/users/:id', query: objectQuery({ merge_into: { type: 'string' } }),
    async handle(req) {
      const deleted = await users.deleteUser(req.tenant, req.params.id, req.query.merge_into as string | undefined);
      return ok(deleted.merged_into === undefined ? userView(deleted) : { ...userView(deleted), merged_into: deleted.merged_into });
    },
  },
  // Preferences (the v5 paths, served on v6 too)
  {
    method: 'GET', path: '/users/:id/preferences', query: paged,
    async handle(req) {
      const page = pageOf(req.query);
      const list = await users.preferencesOfUser(req.tenant, req.params.id, page);
      return pagedReply(req, list.items.map(preferenceView), list.total, page);
    },
  },
  {
    method: 'GET', path: '/users/:user_id/preferences/:document_id',
    handle: async (req) => ok(preferenceView(await users.getPreference(req.tenant, req.params.user_id, req.params.document_id)), 201),
  },
  {
    method: 'POST', path: '/users/:user_id/preferences/:document_id',
    handle: async (req) => ok(preferenceView(await users.addPreference(req.tenant, req.params.user_id, req.params.document_id)), 201),
  },
  {
    method: 'DELETE', path: '/users/:user_id/preferences/:document_id',
    handle: async (req) => ok(preferenceView(await users.deletePreference(req.tenant, req.params.user_id, req.params.document_id))),
  },
];

export const jsonError = (error: ApiError): Reply => ({ status: error.status, body: { message: error.message }, headers: error.headers });

export const v6: ApiVersion = {
  name: 'v6',
  keySource: 'header',
  routes: v6Routes,
  renderError: jsonError,
  pathNotFound: () => new ApiError(404, 'API path not found'),
};
