import { createServer } from 'node:http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { pino } from 'pino';
import type { Db } from '../db/openDatabase.js';
import { recordedBodies, type FaultGate } from '../faults/faultGate.js';
import { registerRoutes } from '../routes/registerRoutes.js';
import { ApiError, validationError } from './apiError.js';
import type { Authenticator, Company } from './auth.js';
import { Router } from './router.js';

export const BODY_LIMIT = 1024 * 1024;

/** `application/json` and the `+json` types (`application/vnd.api+json`), any parameters. */
const JSON_TYPES = /^application\/([\w.-]+\+)?json(\s*;.*)?$/i;

export interface AppOptions {
  db: Db;
  auth: Authenticator;
  gate: FaultGate;
  logLevel: string;
  recordBodies: boolean;
  ordersOrder: 'asc' | 'desc';
  bodyLimit: number;
  /** Most items per bulk request (default 1000). */
  bulkMax?: number;
}

/** The Fastify app: JSON parsing, authentication before routing, the error catalogue, 404/405. */
export function buildApp(options: AppOptions): FastifyInstance {
  const companies = new WeakMap<FastifyRequest, Company>();
  const app = Fastify({
    loggerInstance: pino(
      { level: options.logLevel, base: { app: 'sandbox' } },
      pino.destination(2),
    ) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: false,
    serverFactory: (handler) => createServer((req, res) => options.gate.handle(req, res, handler)),
    // A path Fastify cannot decode (a stray '%') names nothing: after the key check, 404 like any unknown path.
    frameworkErrors: (_error, request, reply) => {
      const send = (status: number, body: unknown): void =>
        void (reply as FastifyReply).code(status).send(body);
      try {
        options.auth.authenticate(request.headers);
      } catch (error) {
        if (error instanceof ApiError) return send(error.status, error.body());
        throw error;
      }
      return send(404, { error: 'not_found', message: 'No route for this path.' });
    },
  });

  // A body is JSON (`application/json`, or `application/<x>+json`), with or without a charset; any
  // other declared type is 415 (see the error handler). An empty body is no body, whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    JSON_TYPES,
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (_req, text, done) => {
      const source = typeof text === 'string' ? text : text.toString('utf8');
      if (source.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(source));
      } catch (error) {
        done(
          validationError({ body: [`malformed JSON: ${(error as Error).message}`] }, 'Malformed JSON body.'),
          undefined,
        );
      }
    },
  );
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: options.bodyLimit }, (_req, text, done) => {
    const source = typeof text === 'string' ? text : text.toString('utf8');
    if (source.trim() === '') return done(null, undefined);
    done(Object.assign(new Error('unsupported media type'), { statusCode: 415 }), undefined);
  });

  app.addHook('onRequest', async (request) => {
    companies.set(request, options.auth.authenticate(request.headers));
  });
  if (options.recordBodies)
    app.addHook('preHandler', async (request) => {
      if (request.body !== undefined) recordedBodies.set(request.raw, request.body);
    });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.headers) void reply.headers(error.headers);
      return reply.code(error.status).send(error.body());
    }
    const code = (error as { code?: string }).code;
    const status = (error as { statusCode?: number }).statusCode;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413)
      return reply.code(413).send({
        error: 'payload_too_large',
        message: `The request body exceeds ${options.bodyLimit === BODY_LIMIT ? '1 MiB' : `${options.bodyLimit} bytes`}.`,
      });
    if (
      code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ||
      code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ||
      status === 415
    )
      return reply.code(415).send({
        error: 'unsupported_media_type',
        message: 'The request body must be JSON (Content-Type: application/json).',
      });
    if (status !== undefined && status >= 400 && status < 500)
      return reply.code(422).send({
        error: 'validation_error',
        message: error instanceof Error ? error.message : 'Invalid request.',
        errors: { body: [error instanceof Error ? error.message : 'invalid request'] },
      });
    request.log.error({ err: error }, 'sandbox handler failed');
    return reply.code(500).send({ error: 'server_error', message: 'Internal server error.' });
  });

  const router = new Router(app, options.db, (request) => {
    const company = companies.get(request);
    if (!company) throw new ApiError(401, 'missing_token', 'An API key is required.');
    return company;
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = router.allowedMethods(path);
    if (allowed.length > 0)
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({ error: 'method_not_allowed', message: `${request.method} is not allowed on ${path}.` });
    return reply.code(404).send({ error: 'not_found', message: `No route ${request.method} ${path}.` });
  });

  registerRoutes(router, {
    ordersOrder: options.ordersOrder,
    ...(options.bulkMax !== undefined ? { bulkMax: options.bulkMax } : {}),
  });
  return app;
}
