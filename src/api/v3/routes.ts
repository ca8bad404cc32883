import type { ApiVersion, RouteDef } from '../../http/route';
import { deleteAllDataRoute } from '../common/admin';
import { batchRoute } from '../../http/batch';
import { clusterRoutes } from '../common/cluster-routes';
import { V5 } from '../common/dialect';
import { recommendRoutes } from '../common/recommend-routes';
import { apiPathNotFound, documentRoutes, tagRoutes, userRoutes } from '../common/handlers';
import { jsonError } from '../../http/error-reply';

/** v3: string ids, untyped tags, user merging, batch and bulk deletion; documents show id, text, meta, timestamps. */
export const v3Routes: RouteDef[] = [
  ...documentRoutes({ d: V5, listDefault: ['text', 'meta'], withPublishedAt: false, clientIds: true, keywordListing: true }),
  ...tagRoutes({ d: V5, typed: false, tagDocumentsDefault: ['text', 'meta'] }),
  ...userRoutes({ d: V5, clientIds: true, mergeInto: true }),
  ...recommendRoutes({ d: V5, filter: false, expandMeta: true, fieldsDefault: [], similarToIds: false, hybrid: 'v3' }),
  ...clusterRoutes({ d: V5, deleteStatus: 200 }),
  batchRoute(),
  deleteAllDataRoute(),
];

export const v3: ApiVersion = { name: 'v3', keySource: 'header', routes: v3Routes, renderError: jsonError, pathNotFound: apiPathNotFound };
