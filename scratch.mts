import { startSandbox } from './src/sandbox/index.js';
const sb = await startSandbox();
const k = sb.keys.primary;
const call = async (label: string, init: RequestInit & { headers?: Record<string,string> }, path = '/tags') => {
  const r = await fetch(sb.url + path, { ...init, headers: { authorization: `Bearer ${k}`, ...(init.headers ?? {}) } });
  console.log(label, r.status, (await r.text()).slice(0, 150));
};
await call('json', { method: 'POST', body: '{"name":"a1"}', headers: { 'content-type': 'application/json' } });
await call('json charset', { method: 'POST', body: '{"name":"a2"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
await call('vnd+json', { method: 'POST', body: '{"name":"a3"}', headers: { 'content-type': 'application/vnd.api+json' } });
await call('text', { method: 'POST', body: '{"name":"a4"}', headers: { 'content-type': 'text/plain' } });
await call('form', { method: 'POST', body: 'name=a5', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
await call('none', { method: 'POST', body: new Uint8Array(Buffer.from('{"name":"a6"}')) });
await call('empty ct', { method: 'POST', body: '{"name":"a7"}', headers: { 'content-type': '' } });
await call('text no body', { method: 'POST', headers: { 'content-type': 'text/plain' } }, '/orders/1/invoice');
await call('no body', { method: 'POST' }, '/orders/1/invoice');
await sb.close();
