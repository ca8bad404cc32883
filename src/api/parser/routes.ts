import type { ApiVersion } from '../../http/route';
import { apiPathNotFound, jsonError, route } from '../common/handlers';

/** The article-extraction service: `GET /?url=<article address>`. */
export const parserVersion: ApiVersion = {
  name: 'parser',
  keySource: 'header',
  renderError: jsonError,
  pathNotFound: apiPathNotFound,
  routes: [
    route('GET', '/', async (req) => {
      const { result, headers } = await req.tenant.articles.parse(req.query.url);
      return { status: 200, body: result, headers };
    }),
  ],
};
