/**
 * Every endpoint of API v2 (spec section 4) as method and path template, relative to `/api/v2`.
 * Literal segments come before `{id}` where both could match (`/products/stock/bulk` is not a
 * product id).
 */
export const API_ROUTES = [
  ['GET', '/account'],
  ['GET', '/stats'],
  ['GET', '/products'],
  ['POST', '/products'],
  ['PATCH', '/products/prices/bulk'],
  ['PATCH', '/products/stock/bulk'],
  ['GET', '/products/stock/list'],
  ['GET', '/products/{id}'],
  ['PATCH', '/products/{id}'],
  ['PATCH', '/products/{id}/price'],
  ['PATCH', '/products/{id}/stock'],
  ['GET', '/orders'],
  ['POST', '/orders'],
  ['GET', '/orders/{id}'],
  ['PATCH', '/orders/{id}'],
  ['POST', '/orders/{id}/awb'],
  ['POST', '/orders/{id}/invoice'],
  ['GET', '/customers'],
  ['GET', '/customers/{id}'],
  ['PATCH', '/customers/{id}'],
  ['GET', '/tags'],
  ['POST', '/tags'],
  ['PUT', '/tags/{id}'],
  ['DELETE', '/tags/{id}'],
  ['POST', '/tags/{id}/attach'],
  ['POST', '/tags/{id}/detach'],
  ['GET', '/categories'],
  ['GET', '/categories/{id}'],
  ['GET', '/returns'],
  ['GET', '/returns/{id}'],
  ['GET', '/offers'],
  ['GET', '/offers/{id}'],
  ['GET', '/marketplaces/list'],
  ['GET', '/couriers'],
  ['GET', '/billing-software'],
  ['GET', '/websites/list'],
  ['GET', '/fulfillments/list'],
  ['GET', '/general/currencies'],
  ['GET', '/general/languages'],
  ['GET', '/general/countries'],
] as const satisfies readonly (readonly [string, string])[];

/** The label for a path that is no endpoint of the spec: keeps the metric's cardinality bounded. */
export const UNKNOWN_ROUTE = 'other';

const templates = [...new Set(API_ROUTES.map(([, template]) => template))];
const literal = new Set<string>(templates.filter((t) => !t.includes('{')));
const patterns = templates
  .filter((t) => t.includes('{'))
  .map((t) => ({ template: t, segments: t.split('/') }));

/**
 * The spec's path template of a concrete request path: `/api/v2/orders/17?x=1` -> `/orders/{id}`.
 * Accepts paths with or without the `/api/v2` base and a query string; anything that is not an
 * endpoint of the spec maps to UNKNOWN_ROUTE (never the raw path, which could carry an id or a
 * searched e-mail into a metric label).
 */
export function routeTemplate(path: string): string {
  let clean = path.split(/[?#]/, 1)[0] ?? '';
  const base = clean.indexOf('/api/v2/');
  if (base >= 0) clean = clean.slice(base + '/api/v2'.length);
  clean = clean.replace(/\/+$/, '');
  if (literal.has(clean)) return clean;
  const segments = clean.split('/');
  for (const { template, segments: expected } of patterns) {
    if (expected.length !== segments.length) continue;
    const matches = expected.every((part, i) =>
      part === '{id}' ? /^\d+$/.test(segments[i] ?? '') : part === segments[i],
    );
    if (matches) return template;
  }
  return UNKNOWN_ROUTE;
}
