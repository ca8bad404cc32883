import dns from 'node:dns';
import net from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './address';
import { decodeHtml } from './charset';
import {
  ParserError,
  badStatus,
  missingUrl,
  refusedAddress,
  responseError,
  tooLarge,
  unparsableUrl,
  unsupportedContentType,
} from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (like dns.lookup with all: true). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface FetchOptions {
  /** Whole fetch, all hops and the body included. Also the connect timeout. Default 10 s. */
  timeoutMs?: number;
  /** Cap on the decoded (decompressed) body. Default 5 MB. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Skip the address check (KINDRED_PARSER_ALLOW_PRIVATE=1): tests and local use only. */
  allowPrivate?: boolean;
  lookup?: HostLookup;
  /**
   * Where to open the socket for an address that passed the check; identity by default.
   * A test seam: lets a test put a local server behind a name whose lookup answers a public address.
   */
  dialAddress?: (checked: ResolvedAddress) => ResolvedAddress;
  userAgent?: string;
}

export interface FetchedPage {
  /** The URL of the last hop, after redirects. */
  url: string;
  html: string;
  charset: string;
  contentType: string;
  status: number;
  /** Every URL requested, in order, the final one included. */
  hops: string[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const systemLookup: HostLookup = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** Validates the raw `url` query value: present, parsable, http or https. */
export function parseArticleUrl(raw: unknown): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw missingUrl();
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw unparsableUrl();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw unparsableUrl();
  url.hash = '';
  return url;
}

/** Decides which address a hop may connect to, refusing the hop if any address of the host is not public. */
async function resolveHop(url: URL, options: FetchOptions): Promise<ResolvedAddress | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = net.isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch {
      throw responseError();
    }
    if (addresses.length === 0) throw responseError();
  }
  if (options.allowPrivate) return literal ? null : addresses[0];
  if (!addresses.every((entry) => isPublicAddress(entry.address))) throw refusedAddress();
  return addresses[0];
}

/** An undici agent whose sockets go to exactly the address that was checked (no second DNS answer). */
function pinnedAgent(pinned: ResolvedAddress | null, timeoutMs: number): Agent {
  const connect: { timeout: number; lookup?: LookupFunction } = { timeout: timeoutMs };
  if (pinned) {
    connect.lookup = ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (opts && opts.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    }) as unknown as LookupFunction;
  }
  return new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i.test(head);
}

/**
 * Fetches an article page safely: http(s) only, every hop's host resolved here, checked and
 * pinned, redirects followed by hand, a total time limit, a streamed size cap and HTML only.
 * Throws ParserError (status 400) with the service's messages.
 */
export async function fetchArticlePage(rawUrl: unknown, options: FetchOptions = {}): Promise<FetchedPage> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = parseArticleUrl(rawUrl);
  const deadline = AbortSignal.timeout(timeoutMs);
  const hops: string[] = [];
  const agents: Agent[] = [];

  const timed = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      if (error instanceof ParserError) throw error;
      throw responseError();
    }
  };

  try {
    for (let redirects = 0; ; redirects++) {
      hops.push(url.href);
      const checked = await timed(
        Promise.race([
          resolveHop(url, options),
          new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(responseError()), { once: true })),
        ]),
      );
      const pinned = checked && options.dialAddress ? options.dialAddress(checked) : checked;
      const agent = pinnedAgent(pinned, timeoutMs);
      agents.push(agent);
      const response = await timed(
        undiciFetch(url.href, {
          dispatcher: agent,
          redirect: 'manual',
          signal: deadline,
          headers: {
            'user-agent': options.userAgent ?? 'Mozilla/5.0 (compatible; KindredParser/0.1)',
            accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
            'accept-encoding': 'gzip, deflate, br',
          },
        }),
      );

      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get('location');
        if (!location) throw badStatus(response.status);
        if (redirects >= maxRedirects) throw responseError();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw unparsableUrl();
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw unparsableUrl();
        next.hash = '';
        url = next;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw badStatus(response.status);
      }

      const contentType = response.headers.get('content-type');
      const type = mediaType(contentType);
      if (type && !HTML_TYPES.has(type)) {
        await response.body?.cancel().catch(() => undefined);
        throw unsupportedContentType(type);
      }
      const declaredLength = Number(response.headers.get('content-length'));
      const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
      if (!encoded && Number.isFinite(declaredLength) && declaredLength > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge();
      }
      const bytes = await timed(readCapped(response.body as ReadableStream<Uint8Array> | null, maxBytes));
      if (!type && !looksLikeHtml(bytes)) throw unsupportedContentType('(none)');
      const { text, charset } = decodeHtml(bytes, contentType);
      return { url: url.href, html: text, charset, contentType: type || 'text/html', status: response.status, hops };
    }
  } finally {
    for (const agent of agents) agent.destroy().catch(() => undefined);
  }
}
