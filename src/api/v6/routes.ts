import type { ApiVersion, RouteDef } from '../../http/route';
import { batchRoute } from '../../http/batch';
import { recommendRoutes, tagSuggestionRoutes } from '../common/recommend-routes';
import { searchRoutes } from '../common/search-routes';
import { V6 } from '../common/dialect';
import { apiPathNotFound, documentIdsRoute, documentRoutes, tagRoutes, userRoutes } from '../common/handlers';
import { jsonError } from '../../http/error-reply';

export const v6Routes: RouteDef[] = [
  documentIdsRoute(),
  ...documentRoutes({ d: V6, listDefault: ['meta', 'text'], withPublishedAt: true, clientIds: true, keywordListing: false }),
  ...tagRoutes({ d: V6, typed: true, tagDocumentsDefault: ['meta', 'text'] }),
  ...userRoutes({ d: V6, clientIds: true, mergeInto: true }),
  ...recommendRoutes({ d: V6, filter: true, expandMeta: false, fieldsDefault: [], similarToIds: true, hybrid: 'v6' }),
  ...tagSuggestionRoutes(),
  ...searchRoutes(V6),
  batchRoute(),
];

export const v6: ApiVersion = {
  name: 'v6',
  keySource: 'header',
  routes: v6Routes,
  renderError: jsonError,
  pathNotFound: apiPathNotFound,
};
