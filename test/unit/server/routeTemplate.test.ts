import { describe, expect, it } from 'vitest';
import { API_ROUTES, UNKNOWN_ROUTE, routeTemplate } from '../../../src/server/routeTemplate.js';

// Every endpoint of spec section 4 (commerce-api-v2.md), copied from the spec's tables by hand
// (not from API_ROUTES) with a concrete path a client would send for it.
const SPEC: [method: string, template: string, concrete: string][] = [
  ['GET', '/account', '/account'],
  ['GET', '/stats', '/stats'],
  ['GET', '/products', '/products'],
  ['POST', '/products', '/products'],
  ['GET', '/products/{id}', '/products/7'],
  ['PATCH', '/products/{id}', '/products/7'],
  ['PATCH', '/products/{id}/price', '/products/12/price'],
  ['PATCH', '/products/prices/bulk', '/products/prices/bulk'],
  ['PATCH', '/products/{id}/stock', '/products/3/stock'],
  ['PATCH', '/products/stock/bulk', '/products/stock/bulk'],
  ['GET', '/products/stock/list', '/products/stock/list'],
  ['GET', '/orders', '/orders'],
  ['POST', '/orders', '/orders'],
  ['GET', '/orders/{id}', '/orders/1001'],
  ['PATCH', '/orders/{id}', '/orders/1001'],
  ['POST', '/orders/{id}/awb', '/orders/1001/awb'],
  ['POST', '/orders/{id}/invoice', '/orders/1001/invoice'],
  ['GET', '/customers', '/customers'],
  ['GET', '/customers/{id}', '/customers/44'],
  ['PATCH', '/customers/{id}', '/customers/44'],
  ['GET', '/tags', '/tags'],
  ['POST', '/tags', '/tags'],
  ['PUT', '/tags/{id}', '/tags/5'],
  ['DELETE', '/tags/{id}', '/tags/5'],
  ['POST', '/tags/{id}/attach', '/tags/5/attach'],
  ['POST', '/tags/{id}/detach', '/tags/5/detach'],
  ['GET', '/categories', '/categories'],
  ['GET', '/categories/{id}', '/categories/2'],
  ['GET', '/returns', '/returns'],
  ['GET', '/returns/{id}', '/returns/9'],
  ['GET', '/offers', '/offers'],
  ['GET', '/offers/{id}', '/offers/9'],
  ['GET', '/marketplaces/list', '/marketplaces/list'],
  ['GET', '/couriers', '/couriers'],
  ['GET', '/billing-software', '/billing-software'],
  ['GET', '/websites/list', '/websites/list'],
  ['GET', '/fulfillments/list', '/fulfillments/list'],
  ['GET', '/general/currencies', '/general/currencies'],
  ['GET', '/general/languages', '/general/languages'],
  ['GET', '/general/countries', '/general/countries'],
];

describe('routeTemplate', () => {
  it('knows exactly the endpoints of the spec', () => {
    const known = API_ROUTES.map(([method, template]) => `${method} ${template}`).sort();
    expect(known).toEqual(SPEC.map(([method, template]) => `${method} ${template}`).sort());
  });

  it.each(SPEC)('maps %s %s from its concrete path', (_method, template, concrete) => {
    expect(routeTemplate(concrete)).toBe(template);
    // as logged by the sandbox (with the base path), with a query string or a trailing slash
    expect(routeTemplate(`/api/v2${concrete}`)).toBe(template);
    expect(routeTemplate(`/api/v2${concrete}?page=2&search=a%40b.ro`)).toBe(template);
    expect(routeTemplate(`${concrete}/`)).toBe(template);
  });

  it('keeps the literal bulk and list paths apart from product ids', () => {
    expect(routeTemplate('/products/stock/bulk')).toBe('/products/stock/bulk');
    expect(routeTemplate('/products/prices/bulk')).toBe('/products/prices/bulk');
    expect(routeTemplate('/products/stock/list')).toBe('/products/stock/list');
    expect(routeTemplate('/products/99/stock')).toBe('/products/{id}/stock');
  });

  it('maps anything else to one bounded label, never to the raw path', () => {
    for (const path of [
      '/products/abc',
      '/orders/12/refund',
      '/orders/12/awb/extra',
      '/secret-token-in-path',
      '/api/v3/orders',
      '',
      '/',
    ]) {
      expect(routeTemplate(path)).toBe(UNKNOWN_ROUTE);
    }
  });
});
