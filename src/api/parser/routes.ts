import { Type } from 'typebox';
import { jsonError } from '../../http/error-reply';
import { route, type ApiVersion } from '../../http/route';
import { apiPathNotFound } from '../common/handlers';
import { article } from '../common/responses';

/** `url` is read as sent: a missing or repeated one is the extraction service's own `url is missing`. */
const query = Type.Object({ url: Type.Optional(Type.Unknown()) });

/** The article-extraction service: `GET /?url=<article address>`. */
export const parserVersion: ApiVersion = {
  name: 'parser',
  keySource: 'header',
  renderError: jsonError,
  pathNotFound: apiPathNotFound,
  routes: [
    route('GET', '/', async (req) => {
      const { url } = req.query;
      const { result, headers } = await req.tenant.articles.parse(typeof url === 'string' ? url : undefined);
      return { status: 200, body: result, headers };
    }, { query, responses: { 200: article } }),
  ],
};
