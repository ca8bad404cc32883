import type { Method, RouteDef } from './route';

interface CompiledRoute {
  route: RouteDef;
  segments: Array<{ literal: string } | { param: string }>;
}

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

function compile(route: RouteDef): CompiledRoute {
  const segments = route.path.split('/').filter(Boolean).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
  return { route, segments };
}

/**
 * Literal segments win over parameters position by position, so `/documents/ids` beats
 * `/documents/:id`: routes sort by their shape, e.g. "LP" for `/documents/:id`, 'L' before 'P'.
 */
const shape = (route: CompiledRoute) => route.segments.map((s) => ('literal' in s ? 'L' : 'P')).join('');
function specificity(a: CompiledRoute, b: CompiledRoute): number {
  const sa = shape(a);
  const sb = shape(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Matches method + path against one version's route table. */
export class Router {
  private readonly byMethod = new Map<Method, CompiledRoute[]>();

  constructor(routes: readonly RouteDef[]) {
    for (const route of routes) {
      const list = this.byMethod.get(route.method) ?? [];
      list.push(compile(route));
      this.byMethod.set(route.method, list);
    }
    for (const list of this.byMethod.values()) list.sort(specificity);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const candidates = this.byMethod.get(method as Method);
    if (!candidates) return undefined;
    // Each segment decoded once, not once per route tried.
    const parts = path.split('/').filter(Boolean).map(decode);
    for (const { route, segments } of candidates) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = segments[i];
        const value = parts[i];
        if (value === undefined) ok = false;
        else if ('literal' in segment) ok = segment.literal === value;
        else params[segment.param] = value;
      }
      if (ok) return { route, params };
    }
    return undefined;
  }
}
