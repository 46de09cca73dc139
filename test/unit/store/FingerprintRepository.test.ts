import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
describe.each(STORE_KINDS)('%s store', (kind) => {
  const stores = new TestStores(kind);

  let store: Store;
  beforeEach(() => {
    store = stores.open();
  });
  afterEach(() => stores.cleanup());

  describe('fingerprints', () => {
    it('returns only the stored keys of the asked pipeline', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'h1', generation: 1 },
        { key: 'B/V1', hash: 'h2', generation: 1 },
      ]);
      store.fingerprints.putMany('prices', [{ key: 'A', hash: 'p1', generation: 1 }]);
      const found = store.fingerprints.getMany('stock', ['A', 'B/V1', 'C']);
      expect([...found.keys()].sort()).toEqual(['A', 'B/V1']);
      expect(found.get('A')).toMatchObject({ key: 'A', hash: 'h1', generation: 1, missing: false });
      expect(found.get('A')!.ackedAt).toMatch(/^\d{4}-/);
    });

    it('never replaces a row with a higher generation by an older one', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'new', generation: 5 }]);
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'old', generation: 4 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({
        hash: 'new',
        generation: 5,
      });
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'newer', generation: 6 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({
        hash: 'newer',
        generation: 6,
      });
    });

    it('marks values unconfirmed (not acknowledged, not missing) unless a later generation holds the key', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'q=1', generation: 1 },
        { key: 'B', hash: 'q=2', generation: 9 },
      ]);
      store.fingerprints.markMissing('stock', ['C'], 1);
      const marked = store.fingerprints.markUnconfirmed('stock', [
        { key: 'A', hash: '~q=5', generation: 2 },
        { key: 'B', hash: '~q=5', generation: 2 },
        { key: 'C', hash: '~q=5', generation: 2 },
        { key: 'D', hash: '~q=5', generation: 2 },
      ]);
      // B belongs to a later generation: the caller does not send it.
      expect([...marked].sort()).toEqual(['A', 'C', 'D']);
      const found = store.fingerprints.getMany('stock', ['A', 'B', 'C']);
      expect(found.get('A')).toMatchObject({ hash: '~q=5', generation: 2, ackedAt: null, missing: false });
      expect(found.get('B')).toMatchObject({ hash: 'q=2', generation: 9 });
      expect(found.get('C')).toMatchObject({ hash: '~q=5', missing: false });
      // The answer, recorded with the same generation, replaces the mark.
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=5', generation: 2 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({ hash: 'q=5' });
    });

    it('handles 100k keys in well under a few seconds', () => {
      const entries = Array.from({ length: 100_000 }, (_, i) => ({
        key: `SKU-${i}`,
        hash: `h${i}`,
        generation: 1,
      }));
      const started = performance.now();
      store.fingerprints.putMany('stock', entries);
      const found = store.fingerprints.getMany(
        'stock',
        entries.map((e) => e.key),
      );
      const elapsed = performance.now() - started;
      expect(found.size).toBe(100_000);
      expect(found.get('SKU-99999')!.hash).toBe('h99999');
      // A guard against a plan that scans the table per key (minutes), not a speed goal (bench:store):
      // PostgreSQL's round trips through its worker take a few seconds on a loaded machine.
      expect(elapsed).toBeLessThan(kind === 'postgres' ? 20_000 : 5_000);
    });

    it('remembers not_found items and forgets them once cleared', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 1 }]);
      store.fingerprints.markMissing('stock', ['A', 'GHOST'], 2);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(true);
      expect(store.fingerprints.isMissing('stock', 'GHOST')).toBe(true);
      expect(store.fingerprints.isMissing('prices', 'GHOST')).toBe(false);
      expect(store.fingerprints.getMany('stock', ['GHOST']).get('GHOST')).toMatchObject({
        missing: true,
        hash: '',
      });
      expect(store.fingerprints.count('stock')).toEqual({ total: 2, missing: 2 });

      store.fingerprints.clearMissing('stock', ['GHOST']);
      const ghost = store.fingerprints.getMany('stock', ['GHOST']).get('GHOST')!;
      expect(ghost.missing).toBe(false);
      expect(ghost.hash).toBe('');
    });

    it('does not mark missing over a later acknowledged generation', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 3 }]);
      store.fingerprints.markMissing('stock', ['A'], 2);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(false);
    });

    it('an acknowledged value clears the missing mark', () => {
      store.fingerprints.markMissing('stock', ['A'], 1);
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 2 }]);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(false);
    });

    it('deletes some keys or a whole pipeline', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'h', generation: 1 },
        { key: 'B', hash: 'h', generation: 1 },
      ]);
      store.fingerprints.putMany('prices', [{ key: 'A', hash: 'h', generation: 1 }]);
      store.fingerprints.delete('stock', ['A']);
      expect([...store.fingerprints.getMany('stock', ['A', 'B']).keys()]).toEqual(['B']);
      store.fingerprints.clear('stock');
      expect(store.fingerprints.getMany('stock', ['A', 'B']).size).toBe(0);
      expect(store.fingerprints.getMany('prices', ['A']).size).toBe(1);
    });
  });
});
