import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The realm browsers show in their login prompt. */
const REALM = 'erp-sync';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The password of an `Authorization: Basic` header, or null. The user name is not checked. */
function passwordOf(header: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * A fastify onRequest hook that lets a request through only with HTTP basic auth carrying
 * `password` (any user name). Compared in constant time over digests, so neither the password's
 * length nor its prefix leaks through timing. The 401 body never echoes what was sent.
 */
export function basicAuth(password: string) {
  const expected = digest(password);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const given = passwordOf(request.headers.authorization);
    if (given !== null && timingSafeEqual(digest(given), expected)) return;
    await reply
      .code(401)
      .header('www-authenticate', `Basic realm="${REALM}", charset="UTF-8"`)
      .send({ error: 'unauthorized', message: 'basic auth with the dashboard password required' });
  };
}
