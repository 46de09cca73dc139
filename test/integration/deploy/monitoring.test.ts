import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/server/createMetrics.js';
import { storeMetricsReader } from '../../../src/server/storeMetricsReader.js';
import { openStore, type Store } from '../../../src/store/Store.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';
import { PROJECT_ROOT } from '../../support/cli.js';
import { exposedMetricNames, promqlMetricNames } from '../../support/promqlMetricNames.js';

const DASHBOARD = join(PROJECT_ROOT, 'deploy/grafana/erp-sync.json');
const RULES_DIR = join(PROJECT_ROOT, 'deploy/prometheus');

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

function dashboardExpressions(): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
  const found: { where: string; expr: string }[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? [])
        found.push({ where: `panel "${panel.title}"`, expr: target.expr });
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = (variable.query as { query: string }).query;
    // label_values(metric, label): only the metric is a name.
    const metric = /^label_values\(\s*([\w:]+)\s*,/.exec(query)?.[1];
    expect(metric, `variable ${variable.name}: ${query}`).toBeDefined();
    found.push({ where: `variable $${variable.name}`, expr: metric! });
  }
  return found;
}

function ruleExpressions(): { where: string; expr: string }[] {
  const rules = parseYaml(readFileSync(join(RULES_DIR, 'alerts.yml'), 'utf8')) as {
    groups: {
      rules: { alert?: string; record?: string; expr: string; annotations?: Record<string, string> }[];
    }[];
  };
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
}

function promtool(...args: string[]): { code: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd: RULES_DIR, encoding: 'utf8' });
  if (result.error)
    throw new Error(`promtool could not run (Debian package "prometheus"): ${result.error.message}`);
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('dashboard and alert rules against the real /metrics output', () => {
  let dir: string;
  let store: Store;
  let exposed: Set<string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-monitoring-'));
    store = openStore(join(dir, 'state.db'));
    const metrics = createMetrics({ store: storeMetricsReader(store) });
    metrics.recordRun({ ...emptySummary('stock', { full: false, dryRun: false }), read: 3, sent: 2 });
    metrics.recordApiResponse({
      method: 'PUT',
      path: '/stock',
      route: '/stock',
      status: 429,
      durationMs: 12,
      attempt: 1,
    });
    metrics.setQueueJobs('stock', { waiting: 1 });
    // Absent from a daemon whose ERP has no watch: the dashboard and rules still use it.
    metrics.setErpWatching(true);
    exposed = exposedMetricNames(await metrics.render());
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds every metric the dashboard uses', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(10);
    const missing = expressions.flatMap(({ where, expr }) =>
      promqlMetricNames(expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('selects the account in every panel (the account variable), so one dashboard serves several accounts', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    const account = dashboard.templating.list.find((variable) => variable.name === 'account');
    expect(account?.query).toMatchObject({ query: 'label_values(erp_sync_runs_total, account)' });
    const selectors = dashboardExpressions()
      .filter(({ where }) => where.startsWith('panel'))
      .flatMap(({ where, expr }) =>
        [...expr.matchAll(/\b(erp_sync_\w+)(\{[^}]*\})?/g)].map((m) => ({ where, selector: m[0] })),
      );
    expect(selectors.length).toBeGreaterThan(25);
    expect(selectors.filter(({ selector }) => !selector.includes('account=~"$account"'))).toEqual([]);
  });

  it('finds every metric the alert rules use, and each rule has a summary and a runbook', () => {
    const expressions = ruleExpressions();
    expect(expressions.map((e) => e.where)).toEqual([
      'rule ErpSyncPipelineStale',
      'rule ErpSyncPaused',
      'rule ErpSyncAccountMismatch',
      'rule ErpSyncAccountUnverified',
      'rule ErpSyncImportsHeld',
      'rule ErpSyncJobsFailing',
      'rule ErpSyncFlowStuck',
      'rule ErpSyncRejectsRising',
      'rule ErpSyncOrderParkedTooLong',
      'rule ErpSyncRateLimited',
      'rule ErpSyncQueueGrowing',
      'rule ErpSyncRunsFailing',
      'rule ErpSyncErpReadStale',
      'rule ErpSyncErpWatchDown',
    ]);
    const missing = expressions.flatMap(({ where, expr }) =>
      promqlMetricNames(expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
    const rules = parseYaml(readFileSync(join(RULES_DIR, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { annotations: Record<string, string> }[] }[];
    };
    for (const rule of rules.groups.flatMap((g) => g.rules)) {
      expect(rule.annotations.summary).toBeTruthy();
      expect(rule.annotations.runbook?.split('\n').length).toBeGreaterThan(2);
    }
  });

  it('would notice a metric that is not exposed', () => {
    const names = promqlMetricNames(
      'histogram_quantile(0.95, sum by (le, route) (rate(erp_sync_api_request_duration_seconds_bucket{route!="/x"}[$__rate_interval]))) / on (route) erp_sync_missing_total',
    );
    expect(names).toEqual(['erp_sync_api_request_duration_seconds_bucket', 'erp_sync_missing_total']);
    expect(exposed.has('erp_sync_api_request_duration_seconds_bucket')).toBe(true);
    expect(exposed.has('erp_sync_missing_total')).toBe(false);
  });

  it('passes promtool check rules', () => {
    const { code, output } = promtool('check', 'rules', 'alerts.yml');
    expect(output).toContain('SUCCESS: 14 rules found');
    expect(code).toBe(0);
  });

  it('passes the rules unit tests (one or more cases per alert)', () => {
    const tests = parseYaml(readFileSync(join(RULES_DIR, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((t) =>
        t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname),
      ),
    );
    const alerts = ruleExpressions().map((r) => r.where.replace(/^rule /, ''));
    expect(alerts.filter((alert) => !firing.has(alert))).toEqual([]);
    const { code, output } = promtool('test', 'rules', 'alerts.test.yml');
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });
});
