import type { OrderEvent } from '../../domain/orders.js';
import type { Checkpointed } from '../ErpAdapter.js';
import type { TrytonClient } from './TrytonClient.js';
import { changedAt, minusSeconds, searchReadAll } from './trytonRows.js';

interface Document {
  id: number;
  number: string | null;
  reference?: string | null;
  create_date: unknown;
  write_date: unknown;
}

interface Sale {
  id: number;
  number: string | null;
  reference: string | null;
  shipments?: number[];
  invoices?: number[];
}

interface Found {
  at: Date;
  kind: 'shipped' | 'invoiced';
  model: string;
  document: Document;
}

/**
 * Fulfilment facts from Tryton after the checkpoint (a Tryton timestamp, ISO): customer
 * shipments done become `shipped` (with the shipment's reference, the carrier's tracking
 * number, in the note), customer invoices posted or paid become `invoiced`. Only sales whose
 * reference is a platform order id count. The overlap window re-reads a little: each event has
 * a stable id (document and order), which the pipeline de-duplicates.
 */
export async function* readTrytonEvents(
  rpc: TrytonClient,
  checkpoint: string | null,
  overlapSeconds: number,
): AsyncGenerator<Checkpointed<OrderEvent>> {
  const since = checkpoint && !Number.isNaN(Date.parse(checkpoint)) ? new Date(checkpoint) : null;
  const changed = since
    ? [
        [
          'OR',
          ['create_date', '>=', minusSeconds(since, overlapSeconds)],
          ['write_date', '>=', minusSeconds(since, overlapSeconds)],
        ],
      ]
    : [];
  const found: Found[] = [];
  const collect = async (model: string, kind: Found['kind'], domain: unknown[], fields: string[]) => {
    for await (const page of searchReadAll<Document>(rpc, model, [...domain, ...changed], fields)) {
      for (const document of page)
        found.push({ at: changedAt(document) ?? new Date(0), kind, model, document });
    }
  };
  await collect(
    'stock.shipment.out',
    'shipped',
    [['state', '=', 'done']],
    ['number', 'reference', 'create_date', 'write_date'],
  );
  await collect(
    'account.invoice',
    'invoiced',
    [
      ['type', '=', 'out'],
      ['state', 'in', ['posted', 'paid']],
    ],
    ['number', 'create_date', 'write_date'],
  );
  if (found.length === 0) return;
  const salesOf = await salesByDocument(rpc, found);
  found.sort(
    (a, b) =>
      a.at.getTime() - b.at.getTime() || a.kind.localeCompare(b.kind) || a.document.id - b.document.id,
  );
  for (const item of found) {
    for (const sale of salesOf.get(`${item.kind}:${item.document.id}`) ?? []) {
      for (const event of eventsOf(item, sale)) {
        yield {
          row: { ok: true, record: event, source: { row: `${item.model} ${item.document.id}` } },
          checkpoint: item.at.toISOString(),
        };
      }
    }
  }
}

/**
 * A shipment done says `processing` first: the platform moves an order to `shipped` only from
 * `processing`, and a sale confirmed in Tryton is in that state already. An order already past
 * it takes the `processing` as applied.
 */
function eventsOf(item: Found, sale: Sale): OrderEvent[] {
  const orderId = Number(sale.reference);
  const base = (kind: OrderEvent['kind']): OrderEvent => {
    const event: OrderEvent = {
      eventId: `tryton:${item.model}:${item.document.id}:${kind}:${orderId}`,
      orderId,
      kind,
    };
    if (sale.number) event.erpRef = sale.number;
    return event;
  };
  if (item.kind === 'invoiced') return [base('invoiced')];
  const tracking = item.document.reference?.trim();
  const shipped = base('shipped');
  shipped.note = `Tryton shipment ${item.document.number ?? item.document.id}${tracking ? `, tracking ${tracking}` : ''}`;
  return [base('processing'), shipped];
}

/** For each found document, the platform sales it belongs to. */
async function salesByDocument(rpc: TrytonClient, found: Found[]): Promise<Map<string, Sale[]>> {
  const result = new Map<string, Sale[]>();
  const platformSale = (sale: Sale) => /^\d+$/.test(sale.reference?.trim() ?? '');
  for (const [kind, field] of [
    ['shipped', 'shipments'],
    ['invoiced', 'invoices'],
  ] as const) {
    const ids = found.filter((item) => item.kind === kind).map((item) => item.document.id);
    if (ids.length === 0) continue;
    const wanted = new Set(ids);
    for await (const page of searchReadAll<Sale>(
      rpc,
      'sale.sale',
      [[field, 'in', ids]],
      ['number', 'reference', field],
    )) {
      for (const sale of page.filter(platformSale)) {
        for (const id of sale[field] ?? []) {
          if (!wanted.has(id)) continue;
          const key = `${kind}:${id}`;
          result.set(key, [...(result.get(key) ?? []), sale]);
        }
      }
    }
  }
  return result;
}
