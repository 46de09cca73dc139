import { createHash } from 'node:crypto';
import { COURIERS, LIMITS, PAYMENT_STATUSES, type Courier, type PaymentStatus } from '../../domain/limits.js';
import { ORDER_EVENT_KINDS, type OrderEvent, type OrderEventKind } from '../../domain/orders.js';
import { describeSource, type ErpRow, type RecordSource } from '../../domain/records.js';

/** One event as the ERP holds it (a line of events.csv, a JSON object, a database row), names as there. */
export type RawEventRow = Record<string, unknown>;

const FIELD_ALIASES: Record<string, string[]> = {
  event_id: ['event_id', 'id'],
  order_id: ['order_id', 'platform_order_id', 'platform_id'],
  erp_ref: ['erp_ref', 'erp_reference', 'reference'],
  event: ['event', 'kind', 'type'],
  courier: ['courier'],
  weight: ['weight', 'weight_kg'],
  parcels: ['parcels'],
  cod_amount: ['cod_amount', 'cod'],
  note: ['note'],
  notes: ['notes'],
  labels: ['labels'],
  payment_status: ['payment_status'],
};

/**
 * Maps one fulfilment event as the ERP holds it (column names and aliases as below) to an
 * OrderEvent, or to the reason it cannot be one; every adapter uses it. Without an `event_id`
 * the event's identity is a hash of its content, so the same event read again (a replay, a
 * rewritten file) is recognised as the same event. A reject is keyed by the order it names, or
 * by its source.
 */
export function toOrderEvent(
  raw: RawEventRow,
  source: RecordSource,
  decimalComma: boolean,
): ErpRow<OrderEvent> {
  const row = normalise(raw);
  const fail = (reason: string): ErpRow<OrderEvent> => ({
    ok: false,
    key: row.order_id ?? row.erp_ref ?? (describeSource(source) || 'events'),
    reason,
    source,
  });
  const kind = row.event?.toLowerCase();
  if (!kind) return fail('missing event');
  if (!(ORDER_EVENT_KINDS as readonly string[]).includes(kind)) {
    return fail(`unknown event "${row.event}" (expected ${ORDER_EVENT_KINDS.join(', ')})`);
  }
  const event: OrderEvent = { eventId: '', kind: kind as OrderEventKind };
  if (row.order_id) {
    if (!/^\d+$/.test(row.order_id)) return fail(`order_id "${row.order_id}" is not an integer`);
    event.orderId = Number(row.order_id);
  }
  if (row.erp_ref) event.erpRef = row.erp_ref;
  if (event.orderId === undefined && event.erpRef === undefined) return fail('neither order_id nor erp_ref');
  if (row.courier) {
    const courier = row.courier.toLowerCase();
    if (!(COURIERS as readonly string[]).includes(courier)) return fail(`unknown courier "${row.courier}"`);
    event.courier = courier as Courier;
  }
  for (const field of ['weight', 'cod_amount'] as const) {
    const text = row[field];
    if (!text) continue;
    const value = Number(decimalComma ? text.replace(',', '.') : text);
    if (!Number.isFinite(value) || value < 0) return fail(`${field} "${text}" is not a number >= 0`);
    if (field === 'weight') event.weight = value;
    else event.codAmount = value;
  }
  if (row.parcels) {
    const parcels = Number(row.parcels);
    if (!Number.isInteger(parcels) || parcels < 1)
      return fail(`parcels "${row.parcels}" is not an integer >= 1`);
    event.parcels = parcels;
  }
  // Over-long texts are refused here, with the file and line, rather than cut short silently.
  if (row.note) {
    const length = [...row.note].length;
    if (length > LIMITS.orderStatusNoteMax)
      return fail(`note has ${length} characters (at most ${LIMITS.orderStatusNoteMax})`);
    event.note = row.note;
  }
  if (row.notes) event.notes = row.notes;
  if (row.labels) {
    const labels = splitLabels(row.labels);
    const long = labels.find((label) => [...label].length > LIMITS.orderLabelMax);
    if (long !== undefined)
      return fail(`label "${long.slice(0, 20)}..." is longer than ${LIMITS.orderLabelMax} characters`);
    event.labels = labels;
  }
  if (row.payment_status) {
    const status = row.payment_status.toLowerCase();
    if (!(PAYMENT_STATUSES as readonly string[]).includes(status)) {
      return fail(`unknown payment_status "${row.payment_status}"`);
    }
    event.paymentStatus = status as PaymentStatus;
  }
  event.eventId = row.event_id ? `id:${row.event_id}` : contentId(event);
  return { ok: true, record: event, source };
}

function normalise(raw: RawEventRow): Record<string, string | undefined> {
  const lower = new Map<string, unknown>();
  for (const [key, value] of Object.entries(raw)) lower.set(key.trim().toLowerCase(), value);
  const out: Record<string, string | undefined> = {};
  for (const [field, aliases] of Object.entries(FIELD_ALIASES)) {
    for (const alias of aliases) {
      const value = lower.get(alias);
      if (value === undefined || value === null) continue;
      const text = Array.isArray(value) ? value.map(String).join('|') : String(value).trim();
      if (text !== '') {
        out[field] = text;
        break;
      }
    }
  }
  return out;
}

function splitLabels(text: string): string[] {
  const separator = text.includes('|') ? '|' : ',';
  return text
    .split(separator)
    .map((label) => label.trim())
    .filter((label) => label !== '');
}

function contentId(event: OrderEvent): string {
  const parts = [
    event.orderId ?? '',
    event.erpRef ?? '',
    event.kind,
    event.courier ?? '',
    event.weight ?? '',
    event.parcels ?? '',
    event.codAmount ?? '',
    event.note ?? '',
    event.notes ?? '',
    (event.labels ?? []).join('|'),
    event.paymentStatus ?? '',
  ];
  return `h:${createHash('sha1').update(JSON.stringify(parts)).digest('hex').slice(0, 20)}`;
}
