import { RollingWindow, type WindowSeries } from './rolling-window';

export interface EndpointFigures {
  version: string;
  method: string;
  /** Route template, e.g. `/documents/:id`; 'unmatched' for paths no route matched. */
  route: string;
  /** Since the process started. */
  total: number;
  /** Over the window: */
  count: number;
  rate: number;
  /** Answers with status >= 500. */
  errors: number;
  p50: number;
  p99: number;
}

interface Endpoint {
  version: string;
  method: string;
  route: string;
  total: number;
}

/** API calls per endpoint (version, method, route template) over a rolling window, fed by Metrics.observe. */
export class RequestStats {
  readonly window: RollingWindow;
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(windowSeconds = 60) {
    this.window = new RollingWindow(windowSeconds);
  }

  record(version: string, route: string, method: string, status: number, seconds: number): void {
    const key = `${version} ${method} ${route}`;
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = { version, method, route, total: 0 };
      this.endpoints.set(key, endpoint);
    }
    endpoint.total++;
    this.window.record(key, seconds, status >= 500);
  }

  /** Endpoints called in the window, busiest first. */
  endpointFigures(): EndpointFigures[] {
    return this.window.summaries().map(({ key, count, errors, rate, p50, p99 }) => {
      const e = this.endpoints.get(key)!;
      return { version: e.version, method: e.method, route: e.route, total: e.total, count, rate, errors, p50, p99 };
    }).sort((a, b) => b.count - a.count || (a.route < b.route ? -1 : 1));
  }

  /** Calls since the process started. */
  total(): number {
    let n = 0;
    for (const e of this.endpoints.values()) n += e.total;
    return n;
  }

  series(): WindowSeries {
    return this.window.series();
  }
}
