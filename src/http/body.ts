import { parse as parseQueryString } from 'node:querystring';
import { KindredError } from '../errors';

/** Form bodies (v1 clients) become plain objects; anything else non-empty must be JSON. */
export function parseBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const text = raw.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return { ...parseQueryString(text) };
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new KindredError('invalid_json', 'body is not valid JSON');
  }
}

/** `a[]=1&a[]=2` and `a=1&a=2` both mean the list `a`. */
export function normaliseQuery(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    const prior = out[name];
    out[name] = prior === undefined ? value : ([] as unknown[]).concat(prior, value);
  }
  return out;
}
