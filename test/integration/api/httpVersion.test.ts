import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../../src/api/transport.js';
import { TrytonClient } from '../../../src/erp/tryton/TrytonClient.js';
import { silentLogger } from '../../../src/logger.js';

// undici 8 negotiates HTTP/2 by default when a TLS server offers it (ALPN). The API client's
// socket bound, keep-alive and its reading of wire failures (not sent / outcome unknown) are
// HTTP/1.1 behaviour, and so is the Tryton client's: both must stay on HTTP/1.1 against a
// server that offers h2, as the platform or a TLS proxy in front of Tryton may.

const folder = mkdtempSync(join(tmpdir(), 'erp-sync-h2-'));
const versions: string[] = [];
let server: Http2SecureServer;
let origin: string;
let cert: string;
const defaultCAs = getCACertificates('default');

beforeAll(async () => {
  const keyFile = join(folder, 'key.pem');
  const certFile = join(folder, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1'.split(' '),
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(certFile, 'utf8');
  // Trusted by this test process only, as a company CA would be (no option to weaken TLS checks).
  setDefaultCACertificates([...defaultCAs, cert]);
  server = createSecureServer({ key: readFileSync(keyFile), cert, allowHTTP1: true }, (req, res) => {
    versions.push(req.httpVersion);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      // Both a v2 API body and a Tryton login answer (user id, session key).
      res.end(JSON.stringify({ data: { ok: true }, id: 1, result: [1, 'session-key'] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  setDefaultCACertificates(defaultCAs);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
});

describe('HTTP version against a TLS server that offers HTTP/2', () => {
  it('the server offers h2 to a client that asks for it', async () => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(origin).port), ALPNProtocols: ['h2'] });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    expect(socket.alpnProtocol).toBe('h2');
    socket.destroy();
  });

  it('the API client speaks HTTP/1.1, over the undici pool and over node:https (oneShot)', async () => {
    for (const oneShot of [false, true]) {
      versions.length = 0;
      const transport = new HttpTransport({
        baseUrl: `${origin}/api/v2`,
        apiKey: 'cms_h2_0123456789',
        retries: 0,
        oneShot,
      });
      try {
        const response = await transport.send({
          method: 'GET',
          path: '/account',
          route: '/account',
          idempotent: true,
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ data: { ok: true } });
      } finally {
        await transport.close();
      }
      expect(versions).toEqual(['1.1']);
    }
  });

  it('the Tryton client speaks HTTP/1.1', async () => {
    versions.length = 0;
    const client = new TrytonClient({
      url: `${origin}/`,
      database: 'erp',
      user: 'admin',
      password: 'secret',
      logger: silentLogger(),
    });
    try {
      await client.login();
    } finally {
      await client.close();
    }
    // login and logout
    expect(versions).toEqual(['1.1', '1.1']);
  });
});
