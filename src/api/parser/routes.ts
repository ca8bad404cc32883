import type { ApiVersion } from '../../http/route';
import type { ArticleService } from '../../services/articles';
import { apiPathNotFound, jsonError, route } from '../common/handlers';

/** The article-extraction service: `GET /?url=<article address>`. */
export function parserVersion(articles: ArticleService): ApiVersion {
  return {
    name: 'parser',
    keySource: 'header',
    renderError: jsonError,
    pathNotFound: apiPathNotFound,
    routes: [
      route('GET', '/', async (req) => {
        const { result, headers } = await articles.parse(req.tenant, req.query.url);
        return { status: 200, body: result, headers };
      }),
    ],
  };
}
