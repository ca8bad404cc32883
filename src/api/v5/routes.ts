import type { ApiVersion, RouteDef } from '../../http/route';
import { batchRoute } from '../common/batch';
import { V5 } from '../common/dialect';
import { recommendRoutes, tagSuggestionRoutes } from '../common/recommend-routes';
import { keywordListing } from '../common/search-routes';
import { apiPathNotFound, documentIdsRoute, documentRoutes, jsonError, tagRoutes, userRoutes } from '../common/handlers';

/** v5: the v6 paths without filtered/by-keyword listing, published_at, tags fields or typed tags. */
export const v5Routes: RouteDef[] = [
  documentIdsRoute(),
  ...documentRoutes({
    d: V5, listDefault: ['meta', 'text'], withPublishedAt: false, clientIds: true,
    listOverride: keywordListing(V5, ['meta', 'text']), keywordListing: true,
  }),
  ...tagRoutes({ d: V5, typed: false, tagDocumentsDefault: ['text', 'meta'] }),
  ...userRoutes({ d: V5, clientIds: true, mergeInto: true }),
  ...recommendRoutes({ d: V5, filter: false, expandMeta: false, fieldsDefault: [], similarToIds: true, hybrid: 'v6' }),
  ...tagSuggestionRoutes(),
  batchRoute(),
];

export const v5: ApiVersion = { name: 'v5', keySource: 'header', routes: v5Routes, renderError: jsonError, pathNotFound: apiPathNotFound };
