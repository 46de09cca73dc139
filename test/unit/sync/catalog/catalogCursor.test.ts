import { describe, expect, it } from 'vitest';
import { alreadySeen, CursorTracker, scanFrom } from '../../../../src/sync/catalog/catalogCursor.js';

describe('catalog cursor', () => {
  it('starts a scan one overlap window before the cursor, at second resolution', () => {
    expect(scanFrom('2026-11-21T10:00:00Z', 120)).toBe('2026-11-21T09:58:00Z');
    expect(scanFrom(null, 120)).toBeUndefined();
  });

  it('re-reads the boundary second even with no overlap configured', () => {
    // strictly-after from one second before the cursor includes products stamped at the cursor
    expect(scanFrom('2026-11-21T10:00:00Z', 0)).toBe('2026-11-21T09:59:59Z');
  });

  it('advances to the newest updated_at seen but not past the scan start', () => {
    const tracker = new CursorTracker();
    tracker.see('2026-11-21T10:00:05Z');
    tracker.see('2026-11-21T10:00:09Z');
    tracker.see('2026-11-21T10:00:01Z');
    expect(tracker.next(null, Date.parse('2026-11-21T11:00:00Z'))).toBe('2026-11-21T10:00:09Z');
    expect(tracker.next(null, Date.parse('2026-11-21T10:00:07.500Z'))).toBe('2026-11-21T10:00:07Z');
  });

  it('never moves backwards and keeps the cursor when nothing was seen', () => {
    const tracker = new CursorTracker();
    expect(tracker.next('2026-11-21T10:00:00Z', Date.now())).toBe('2026-11-21T10:00:00Z');
    tracker.see('2026-11-21T09:00:00Z');
    expect(tracker.next('2026-11-21T10:00:00Z', Date.now())).toBe('2026-11-21T10:00:00Z');
  });

  it('de-duplicates by product id and updated_at, but always re-handles the boundary second', () => {
    const at = '2026-11-21T10:00:00Z';
    const link = { productId: 7, platformUpdatedAt: at };
    const cursor = '2026-11-21T10:00:30Z';
    expect(alreadySeen(link, { id: 7, updated_at: at }, cursor)).toBe(true);
    expect(alreadySeen(link, { id: 7, updated_at: '2026-11-21T10:00:01Z' }, cursor)).toBe(false);
    expect(alreadySeen(link, { id: 8, updated_at: at }, cursor)).toBe(false);
    expect(alreadySeen(undefined, { id: 7, updated_at: at }, cursor)).toBe(false);
    // Same second as the cursor: it may have changed again within that second.
    expect(alreadySeen(link, { id: 7, updated_at: at }, at)).toBe(false);
    expect(alreadySeen(link, { id: 7, updated_at: at }, null)).toBe(false);
  });
});
