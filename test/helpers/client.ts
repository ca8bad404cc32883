export interface Response<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string;
  headers?: Record<string, string>;
  key?: string | null;
}

/** A small HTTP client for tests: JSON in, parsed JSON (or text) out. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = 'test-key',
  ) {}

  withKey(key: string | null): Client {
    return new Client(this.baseUrl, key);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.key : options.key;
    if (key !== null) headers['Subscription-Key'] = key;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) { return this.request<T>('GET', path, options); }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) { return this.request<T>('POST', path, { ...options, body }); }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) { return this.request<T>('PUT', path, { ...options, body }); }
  delete<T = any>(path: string, options?: RequestOptions) { return this.request<T>('DELETE', path, options); }
}

/** Creates the documents in the client's key through POST /batch, a hundred at a time; throws on any refusal. */
export async function createInBatches(api: Client, docs: ReadonlyArray<{ id: string; text: string }>): Promise<void> {
  for (let i = 0; i < docs.length; i += 100) {
    const headers = api.key === null ? {} : { 'Subscription-Key': api.key };
    const ops = docs.slice(i, i + 100).map((d) => ({ method: 'POST', url: `/documents/${d.id}`, headers, params: { text: d.text } }));
    const res = await api.post('/batch', { sequential: false, ops });
    if (res.status !== 200) throw new Error(`POST /batch: ${res.status} ${res.text}`);
  }
}
