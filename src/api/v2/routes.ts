import type { ApiVersion, RouteDef } from '../../http/route';
import { pagedReply, pageOf } from '../../http/pagination';
import { deleteAllDataRoute } from '../common/admin';
import { batchRoute } from '../common/batch';
import { clusterRoutes } from '../common/cluster-routes';
import { V2 } from '../common/dialect';
import { recommendRoutes } from '../common/recommend-routes';
import { keywordListing } from '../common/search-routes';
import { apiPathNotFound, documentRoutes, documentViews, integerId, jsonError, userRoutes } from '../common/handlers';
import { parseFields } from '../common/fields';

/**
 * v2: integer ids counted out per key (no client ids), no tags, no hybrid recommender; reading a
 * document or user and deleting one answer 201, as the spec gives them.
 */
const byKeywords = keywordListing(V2, ['text', 'meta']);

export const v2Routes: RouteDef[] = [
  ...documentRoutes({
    d: V2, idParam: integerId, listDefault: ['text', 'meta'], withPublishedAt: false, clientIds: false,
    readStatus: 201, deleteStatus: 201,
    createDocument: (req, input) => req.tenant.documents.createNumberedDocument(input),
    keywordListing: true,
    listOverride: async (req) => {
      const searched = await byKeywords(req);
      if (searched) return searched;
      const page = pageOf(req.query);
      const list = await req.tenant.documents.listNumberedDocuments(page);
      return pagedReply(req, await documentViews(V2, req, list.items, parseFields(req.query.fields, V2.fields, ['text', 'meta'])), list.total, page);
    },
  }),
  ...userRoutes({
    d: V2, idParam: integerId, clientIds: false, mergeInto: false, deleteStatus: 201,
    createUser: (req) => req.tenant.users.createNumberedUser(),
  }),
  ...recommendRoutes({ d: V2, filter: false, expandMeta: false, fieldsDefault: [], similarToIds: false, hybrid: false, idParam: integerId }),
  ...clusterRoutes({ d: V2, deleteStatus: 201 }),
  batchRoute(),
  deleteAllDataRoute(),
];

export const v2: ApiVersion = { name: 'v2', keySource: 'header', routes: v2Routes, renderError: jsonError, pathNotFound: apiPathNotFound };
