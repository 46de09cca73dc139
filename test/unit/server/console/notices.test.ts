import { describe, expect, it } from 'vitest';
import { backWithNotice, noticeOf } from '../../../../src/server/console/notices.js';

const PIPELINES = ['stock', 'orders'];

describe('action notices', () => {
  it('returns to the page the form was on, with the notice and without an older one', () => {
    expect(backWithNotice('/rejects?pipeline=stock&notice=audit-busy', { notice: 'audit' })).toBe(
      '/rejects?pipeline=stock&notice=audit',
    );
    expect(
      backWithNotice('/explain/order?id=7', { notice: 'retry', orders: 1, job: 'manual-orders-1' }),
    ).toBe('/explain/order?id=7&notice=retry%3A1%3Amanual-orders-1');
  });

  it('never sends the browser to another site', () => {
    for (const back of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
      7,
    ])
      expect(backWithNotice(back, { notice: 'audit' })).toBe('/?notice=audit');
  });

  it('shows only known notices with checked values, escaped', () => {
    expect(noticeOf({ notice: 'sync:stock:manual-stock-1' }, PIPELINES)?.text).toContain(
      'A stock run was enqueued (job <span class="mono">runs/manual-stock-1</span>)',
    );
    expect(noticeOf({ notice: 'retry:2:manual-orders-1' }, PIPELINES)?.text).toContain('2 parked order(s)');
    expect(noticeOf({ notice: 'sync:<b>:x' }, PIPELINES)).toBeNull();
    expect(noticeOf({ notice: 'sync:stock:<script>' }, PIPELINES)).toBeNull();
    expect(noticeOf({ notice: 'retry:2 orders; call us:j' }, PIPELINES)).toBeNull();
    expect(noticeOf({ notice: ['audit'] }, PIPELINES)).toBeNull();
    expect(noticeOf({ notice: 'anything' }, PIPELINES)).toBeNull();
    expect(noticeOf({}, PIPELINES)).toBeNull();
  });
});
