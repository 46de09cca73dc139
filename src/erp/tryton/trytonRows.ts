import type { TrytonClient } from './TrytonClient.js';

export const PAGE = 500;

/** search_read page by page (by id), so that a large catalogue never sits in one reply. */
export async function* searchReadAll<T extends { id: number }>(
  rpc: TrytonClient,
  model: string,
  domain: unknown[],
  fields: string[],
  context?: Record<string, unknown>,
): AsyncGenerator<T[]> {
  let lastId = 0;
  for (;;) {
    const page = await rpc.model<T[]>(
      model,
      'search_read',
      [[...domain, ['id', '>', lastId]], 0, PAGE, [['id', 'ASC']], fields],
      context,
    );
    if (page.length === 0) return;
    yield page;
    lastId = page[page.length - 1]!.id;
    if (page.length < PAGE) return;
  }
}

/** The later of a row's create/write timestamps (write_date is null on never-modified rows). */
export function changedAt(row: { create_date?: unknown; write_date?: unknown }): Date | null {
  const dates = [row.create_date, row.write_date].filter((d): d is Date => d instanceof Date);
  return dates.length === 0 ? null : new Date(Math.max(...dates.map((d) => d.getTime())));
}

export function latest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

export function minusSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() - seconds * 1000);
}

/** Whole units for the platform: fractions dropped, oversold (negative) stock shown as 0. */
export function wholeUnits(quantity: unknown): number | null {
  if (typeof quantity !== 'number' || !Number.isFinite(quantity)) return null;
  return Math.max(0, Math.floor(quantity + 1e-9));
}
