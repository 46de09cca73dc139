import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import { isPipelineName, type PipelineName } from '../../domain/pipelineNames.js';
import { auditFragment, type AuditState } from './auditView.js';
import type { ConsoleSources } from './ConsoleSources.js';
import { CONSOLE_JS } from './consoleScript.js';
import { CONSOLE_CSS } from './consoleStyles.js';
import { CsrfTokens } from './CsrfTokens.js';
import { orderStoryView, skuStoryView } from './explainViews.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';
import { layout, type Section } from './layout.js';
import { memo } from './memo.js';
import { backWithNotice, noticeOf } from './notices.js';
import {
  overviewFragment,
  type Health,
  type OverviewData,
  type Piece,
  type Readiness,
} from './overviewView.js';
import { parkedFragment } from './parkedView.js';
import {
  REJECTS_PAGE_SIZE,
  rejectsFilters,
  rejectsFragment,
  rejectsQueryString,
  type RejectsQuery,
} from './rejectsView.js';
import { problem, type ViewContext } from './viewParts.js';

export interface ConsoleOptions {
  sources: ConsoleSources;
  /** No actions: forms not drawn, POSTs refused. */
  readOnly: boolean;
  readiness: () => Promise<Readiness>;
  health: () => Health;
  logger: Logger;
  /** Seconds between the browser's refreshes of the live parts. Default 5. */
  refreshSeconds?: number;
}

/** Every console response: no framing, no inline script, no other origin, nothing cached. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const BODY_LIMIT = 4096;
const RECENT_RUNS = 15;
const MAX_SKU_LENGTH = 200;

type Query = Record<string, unknown>;

function text(query: unknown, name: string): string | undefined {
  const value = (query as Query | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

async function piece<T>(read: () => Promise<T> | T): Promise<Piece<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The operator's console at `/` of the ops server: the overview, open rejects, parked orders,
 * an item's story (`explain`), the audit, and the actions (sync a pipeline, retry parked orders,
 * run an audit) as POST forms with a CSRF token, refused when `readOnly`. Server-rendered HTML
 * from `html` (escapes every value); one stylesheet and one small script served here. Registered
 * inside the ops server's guarded scope, so beyond loopback every page needs the dashboard
 * password. A piece that cannot be read (Redis, the ERP, the platform) is a message in the page.
 */
export async function registerConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { sources, readOnly } = options;
  const log = options.logger.child({ module: 'console' });
  const csrf = new CsrfTokens();
  const refreshSeconds = options.refreshSeconds ?? 5;
  const status = memo(() => sources.status(), 2_000);
  const erp = memo(() => sources.erp(), 30_000);
  const audit: AuditState = { running: false, startedAt: null, finishedAt: null, report: null, error: null };

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.setErrorHandler(async (error, request, reply) => {
    const code = (error as { statusCode?: number }).statusCode;
    const clientError = code !== undefined && code >= 400 && code < 500;
    if (!clientError) log.warn({ err: error, url: request.url }, 'console request failed');
    return page(reply, clientError ? code : 500, {
      title: 'Error',
      section: 'none',
      body: problem(clientError ? 'The request was refused' : 'This page could not be drawn', error),
    });
  });

  const view = (request: FastifyRequest, here: string): ViewContext => ({
    csrf: csrf.issue(),
    readOnly,
    here: here || request.url,
  });

  const counts = (): { rejects: number; parked: number } | null => {
    try {
      return { rejects: sources.store.rejects.countOpen(), parked: sources.store.orders.parked.count() };
    } catch {
      return null;
    }
  };

  function page(
    reply: FastifyReply,
    code: number,
    parts: { title: string; section: Section; body: HtmlValue; notice?: SafeHtml | null },
  ): FastifyReply {
    const document = layout({ ...parts, counts: counts(), readOnly, refreshSeconds });
    return reply.code(code).type('text/html; charset=utf-8').send(document.text);
  }

  const fragment = (reply: FastifyReply, body: SafeHtml): FastifyReply =>
    reply.type('text/html; charset=utf-8').send(body.text);

  const live = (url: string, body: SafeHtml): SafeHtml => html`<div data-live="${url}">${body}</div>`;

  const notice = (request: FastifyRequest) => noticeOf(request.query as Query, sources.pipelines);

  app.get('/console/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  app.get('/console/console.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );

  // Overview
  const overview = async (request: FastifyRequest): Promise<SafeHtml> => {
    const data: OverviewData = {
      health: options.health(),
      readiness: await piece(options.readiness),
      status: await piece(status),
      erp: await piece(erp),
      runs: await piece(() => sources.recentRuns(RECENT_RUNS)),
      platform: sources.platform,
    };
    return overviewFragment(view(request, '/'), data);
  };
  app.get('/', async (request, reply) =>
    page(reply, 200, {
      title: 'Overview',
      section: 'overview',
      notice: notice(request),
      body: html`<h1>Overview</h1>
        ${live('/fragments/overview', await overview(request))}`,
    }),
  );
  app.get('/fragments/overview', async (request, reply) => fragment(reply, await overview(request)));

  // Rejects
  const rejectsQuery = (request: FastifyRequest): RejectsQuery => {
    const pipeline = text(request.query, 'pipeline');
    const sku = text(request.query, 'sku')?.trim().slice(0, MAX_SKU_LENGTH);
    const pageNumber = Number(text(request.query, 'page') ?? '1');
    return {
      ...(pipeline && isPipelineName(pipeline) ? { pipeline } : {}),
      ...(sku ? { sku } : {}),
      page: Number.isInteger(pageNumber) && pageNumber >= 1 && pageNumber <= 1_000_000 ? pageNumber : 1,
    };
  };
  const rejects = (query: RejectsQuery): SafeHtml => {
    try {
      const filter = { pipeline: query.pipeline, sku: query.sku };
      const list = sources.store.rejects.list({
        ...filter,
        limit: REJECTS_PAGE_SIZE,
        offset: (query.page - 1) * REJECTS_PAGE_SIZE,
      });
      return rejectsFragment(query, list, sources.store.rejects.countOpen(query.pipeline, query.sku));
    } catch (error) {
      return problem('The rejects could not be read from the store', error);
    }
  };
  app.get('/rejects', async (request, reply) => {
    const query = rejectsQuery(request);
    return page(reply, 200, {
      title: 'Rejects',
      section: 'rejects',
      body: html`<h1>Open rejects</h1>
        <p class="muted">
          Rows the ERP adapter, the validation or the platform refused, with the reason and where the row is.
          A reject is resolved once the same item goes through.
        </p>
        ${rejectsFilters(query, sources.pipelines)}
        ${live(`/fragments/rejects${rejectsQueryString(query)}`, rejects(query))}`,
    });
  });
  app.get('/fragments/rejects', async (request, reply) => fragment(reply, rejects(rejectsQuery(request))));

  // Parked orders
  const parked = (request: FastifyRequest): SafeHtml => {
    try {
      return parkedFragment(view(request, '/orders'), sources.store.orders.parked.list());
    } catch (error) {
      return problem('The parked orders could not be read from the store', error);
    }
  };
  app.get('/orders', async (request, reply) =>
    page(reply, 200, {
      title: 'Parked orders',
      section: 'orders',
      notice: notice(request),
      body: html`<h1>Parked orders</h1>
        <p class="muted">
          Platform orders the ERP refused (an unknown SKU, a refused customer), with its reason. They are
          retried with back-off and never dropped; fix the cause in the ERP, then retry now.
        </p>
        ${live('/fragments/orders', parked(request))}`,
    }),
  );
  app.get('/fragments/orders', async (request, reply) => fragment(reply, parked(request)));

  // Audit
  app.get('/audit', async (request, reply) =>
    page(reply, 200, {
      title: 'Audit',
      section: 'audit',
      notice: notice(request),
      body: html`<h1>Audit</h1>
        <p class="muted">
          A read-only comparison of the ERP and the platform (stock, prices, orders), as
          <span class="mono">erp-sync audit</span> makes it: it reads the whole platform catalog and the ERP,
          and writes nothing.
        </p>
        ${live('/fragments/audit', auditFragment(view(request, '/audit'), audit))}`,
    }),
  );
  app.get('/fragments/audit', async (request, reply) =>
    fragment(reply, auditFragment(view(request, '/audit'), audit)),
  );

  // An item's story
  app.get('/explain', async (request, reply) => {
    const q = text(request.query, 'q')?.trim() ?? '';
    if (
      text(request.query, 'kind') === 'order' ||
      (/^[1-9]\d{0,15}$/.test(q) && !text(request.query, 'kind'))
    )
      return reply.redirect(`/explain/order?id=${encodeURIComponent(q)}`, 303);
    return reply.redirect(`/explain/sku?sku=${encodeURIComponent(q)}`, 303);
  });
  app.get('/explain/sku', async (request, reply) => {
    const sku = text(request.query, 'sku')?.trim() ?? '';
    if (!sku || sku.length > MAX_SKU_LENGTH)
      return page(reply, 400, {
        title: 'Explain',
        section: 'explain',
        body: problem('No SKU', `give a SKU of at most ${MAX_SKU_LENGTH} characters`),
      });
    const story = await piece(() => sources.explainSku(sku));
    return page(reply, 200, {
      title: `SKU ${sku}`,
      section: 'explain',
      body: story.ok
        ? skuStoryView(story.value)
        : html`<h1>SKU <span class="mono">${sku}</span></h1>
            ${problem('The story of this SKU could not be told', story.error)}`,
    });
  });
  app.get('/explain/order', async (request, reply) => {
    const id = text(request.query, 'id')?.trim() ?? '';
    if (!/^[1-9]\d{0,15}$/.test(id))
      return page(reply, 400, {
        title: 'Explain',
        section: 'explain',
        body: problem('Not an order id', `a platform order id is a positive whole number, not "${id}"`),
      });
    const story = await piece(() => sources.explainOrder(Number(id)));
    return page(reply, 200, {
      title: `Order ${id}`,
      section: 'explain',
      notice: notice(request),
      body: story.ok
        ? orderStoryView(view(request, `/explain/order?id=${id}`), story.value)
        : html`<h1>Order <span class="mono">${id}</span></h1>
            ${problem('The story of this order could not be told', story.error)}`,
    });
  });

  // Actions: POST, same origin, a token this console issued, and not read-only.
  const refuse = (reply: FastifyReply, code: number, why: string): FastifyReply =>
    page(reply, code, {
      title: 'Refused',
      section: 'none',
      body: html`<div class="note error" role="alert">${why}</div>
        <p><a href="/">Back to the overview</a></p>`,
    });
  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (readOnly) {
      await refuse(
        reply,
        403,
        "The console is read-only (server.dashboard.readOnly): it shows the daemon but changes nothing. Use the erp-sync commands on the daemon's host, or set server.dashboard.readOnly: false.",
      );
      return;
    }
    if (crossSite(request)) {
      await refuse(reply, 403, 'This action came from another site: refused.');
      return;
    }
    if (!csrf.verify((request.body as Query | undefined)?._csrf)) {
      log.warn({ url: request.url }, 'console action refused: missing or invalid form token');
      await refuse(
        reply,
        403,
        'The form was not issued by this console, or is older than 12 hours (or the daemon restarted since): reload the page and try again.',
      );
    }
  };
  const body = (request: FastifyRequest): Query => (request.body as Query | undefined) ?? {};

  app.post('/actions/sync', { preHandler: guard }, async (request, reply) => {
    const pipeline = text(body(request), 'pipeline') ?? '';
    if (!isPipelineName(pipeline) || !sources.pipelines.includes(pipeline))
      return refuse(reply, 400, `Unknown pipeline "${pipeline}".`);
    const job = await piece(() => sources.sync(pipeline as PipelineName));
    if (!job.ok)
      return refuse(reply, 503, `The ${pipeline} run could not be enqueued: ${describeError(job.error)}`);
    log.info({ pipeline, job: job.value }, 'console: run enqueued');
    return reply.redirect(
      backWithNotice(body(request).back, { notice: 'sync', pipeline, job: job.value }),
      303,
    );
  });

  app.post('/actions/retry', { preHandler: guard }, async (request, reply) => {
    const order = text(body(request), 'order') ?? '';
    if (order !== 'all' && !/^[1-9]\d{0,15}$/.test(order))
      return refuse(reply, 400, `Not an order id: "${order}".`);
    const ids = order === 'all' ? [] : [Number(order)];
    if (ids.length && !sources.store.orders.parked.get(ids[0]!))
      return reply.redirect(backWithNotice(body(request).back, { notice: 'retry-none' }), 303);
    const retried = await piece(() => sources.retryParked(ids));
    if (!retried.ok)
      return refuse(reply, 503, `The parked orders could not be retried: ${describeError(retried.error)}`);
    log.info(
      { orders: order, made: retried.value.made, job: retried.value.jobId },
      'console: parked orders retried',
    );
    return reply.redirect(
      backWithNotice(body(request).back, {
        notice: 'retry',
        orders: retried.value.made,
        job: retried.value.jobId,
      }),
      303,
    );
  });

  app.post('/actions/audit', { preHandler: guard }, async (request, reply) => {
    if (audit.running) return reply.redirect(backWithNotice('/audit', { notice: 'audit-busy' }), 303);
    Object.assign(audit, { running: true, startedAt: new Date().toISOString(), error: null });
    log.info('console: audit started');
    void sources
      .audit()
      .then((report) => {
        audit.report = report;
        log.info(
          { drift: report.drift, complete: report.complete, seconds: report.seconds },
          'console: audit done',
        );
      })
      .catch((error: unknown) => {
        audit.error = error;
        log.warn({ err: error }, 'console: audit failed');
      })
      .finally(() => {
        audit.running = false;
        audit.finishedAt = new Date().toISOString();
      });
    return reply.redirect(backWithNotice('/audit', { notice: 'audit' }), 303);
  });
}

/**
 * A browser says where a request came from (Fetch Metadata): another site's is refused whatever it
 * carries. Origin is not compared with Host: a TLS proxy in front may rewrite Host. The token is
 * the check that counts; this one also stops a browser that sends no token to the wrong place.
 */
function crossSite(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-site'] === 'cross-site';
}
