import type { ApiVersion, RouteDef } from '../../http/route';
import { batchRoute } from '../../http/batch';
import { V5 } from '../common/dialect';
import { recommendRoutes, tagSuggestionRoutes } from '../common/recommend-routes';
import { apiPathNotFound, documentIdsRoute, documentRoutes, tagRoutes, userRoutes } from '../common/handlers';
import { jsonError } from '../../http/error-reply';

/** v5: the v6 paths without filtered/by-keyword listing, published_at, tags fields or typed tags. */
export const v5Routes: RouteDef[] = [
  documentIdsRoute(),
  ...documentRoutes({ d: V5, listDefault: ['meta', 'text'], withPublishedAt: false, clientIds: true, keywordListing: true }),
  ...tagRoutes({ d: V5, typed: false, tagDocumentsDefault: ['text', 'meta'] }),
  ...userRoutes({ d: V5, clientIds: true, mergeInto: true }),
  ...recommendRoutes({ d: V5, filter: false, expandMeta: false, fieldsDefault: [], similarToIds: true, hybrid: 'v6' }),
  ...tagSuggestionRoutes(),
  batchRoute(),
];

export const v5: ApiVersion = { name: 'v5', keySource: 'header', routes: v5Routes, renderError: jsonError, pathNotFound: apiPathNotFound };
