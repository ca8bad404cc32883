import { batchRoute } from '../../http/batch';
import { jsonError } from '../../http/error-reply';
import type { ApiVersion, RouteDef } from '../../http/route';
import { deleteAllDataRoute } from '../common/admin';
import { clusterRoutes } from '../common/cluster-routes';
import { V2 } from '../common/dialect';
import { recommendRoutes } from '../common/recommend-routes';
import { apiPathNotFound, documentRoutes, userRoutes } from '../common/handlers';

/**
 * v2: integer ids counted out per key (no client ids), no tags, no hybrid recommender; reading a
 * document or user and deleting one answer 201, as the spec gives them. Its dialect's id scope makes the
 * services address and show only documents and users with integer ids.
 */
export const v2Routes: RouteDef[] = [
  ...documentRoutes({
    d: V2, listDefault: ['text', 'meta'], withPublishedAt: false, clientIds: false, keywordListing: true,
    readStatus: 201, deleteStatus: 201,
  }),
  ...userRoutes({ d: V2, clientIds: false, mergeInto: false, deleteStatus: 201 }),
  ...recommendRoutes({ d: V2, filter: false, expandMeta: false, fieldsDefault: [], similarToIds: false, hybrid: false }),
  ...clusterRoutes({ d: V2, deleteStatus: 201 }),
  batchRoute(),
  deleteAllDataRoute(),
];

export const v2: ApiVersion = { name: 'v2', keySource: 'header', routes: v2Routes, renderError: jsonError, pathNotFound: apiPathNotFound };
