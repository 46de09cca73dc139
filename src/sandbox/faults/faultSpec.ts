export interface RouteFilter {
  method: string | null;
  prefix: string;
}

export interface FaultSpec {
  latency: { min: number; max: number } | null;
  errorRate: number;
  rateLimit: number | null;
  dropRate: number;
  stallRate: number;
  only: RouteFilter[] | null;
}

export const NO_FAULTS: FaultSpec = {
  latency: null,
  errorRate: 0,
  rateLimit: null,
  dropRate: 0,
  stallRate: 0,
  only: null,
};

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'];

function probability(name: string, value: string): number {
  const p = Number(value);
  if (value.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1)
    throw new Error(`fault spec: ${name} must be a probability from 0 to 1, got "${value}"`);
  return p;
}

function parseOnly(value: string): RouteFilter[] {
  return value.split('|').map((part) => {
    const words = part.trim().split(/\s+/).filter(Boolean);
    const [first, second] = words;
    if (!first || words.length > 2) throw new Error(`fault spec: bad only= entry "${part}"`);
    const hasMethod = second !== undefined || METHODS.includes(first.toUpperCase());
    const method = hasMethod ? first.toUpperCase() : null;
    if (method !== null && method !== '*' && !METHODS.includes(method))
      throw new Error(`fault spec: unknown method "${first}" in only=`);
    const rawPrefix = (hasMethod ? second : first) ?? '/';
    const prefix = rawPrefix.startsWith('/') ? rawPrefix : `/${rawPrefix}`;
    return { method: method === '*' ? null : method, prefix };
  });
}

/**
 * Parses `latency=20-200,error_rate=0.05,rate_limit=50/s,drop_rate=0.01,stall_rate=0.01,only=POST /orders`.
 * Empty or null means no faults. Unknown names and bad values throw with a message naming them.
 */
export function parseFaultSpec(spec: string | null | undefined): FaultSpec {
  const result: FaultSpec = { ...NO_FAULTS };
  if (!spec || spec.trim() === '' || spec.trim() === 'none') return result;
  for (const part of spec.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`fault spec: expected name=value, got "${part.trim()}"`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    switch (name) {
      case 'latency': {
        const m = /^(\d+)(?:-(\d+))?(?:ms)?$/.exec(value);
        if (!m) throw new Error(`fault spec: latency must be MIN-MAX in ms, got "${value}"`);
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : Number(m[2]);
        if (max < min) throw new Error(`fault spec: latency max is below min in "${value}"`);
        result.latency = { min, max };
        break;
      }
      case 'error_rate':
        result.errorRate = probability(name, value);
        break;
      case 'drop_rate':
        result.dropRate = probability(name, value);
        break;
      case 'stall_rate':
        result.stallRate = probability(name, value);
        break;
      case 'rate_limit': {
        const m = /^(\d+)\/s$/.exec(value);
        if (!m || Number(m[1]) < 1)
          throw new Error(`fault spec: rate_limit must be N/s with N >= 1, got "${value}"`);
        result.rateLimit = Number(m[1]);
        break;
      }
      case 'only':
        result.only = parseOnly(value);
        break;
      default:
        throw new Error(`fault spec: unknown fault "${name}"`);
    }
  }
  return result;
}

/** Whether a request (method, path relative to /api/v2) is subject to the faults. */
export function faultApplies(spec: FaultSpec, method: string, relativePath: string): boolean {
  if (!spec.only) return true;
  return spec.only.some(
    (f) =>
      (f.method === null || f.method === method) &&
      (relativePath === f.prefix ||
        relativePath.startsWith(f.prefix.endsWith('/') ? f.prefix : `${f.prefix}/`) ||
        f.prefix === '/'),
  );
}
