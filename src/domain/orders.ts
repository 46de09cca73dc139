import type { Courier, OrderStatus, PaymentStatus } from './limits.js';
import type { RecordSource } from './records.js';

/** A customer's postal address, whichever shape the platform sent it in. */
export interface OrderAddress {
  street: string | null;
  city: string | null;
  postalCode: string | null;
  county: string | null;
  country: string | null;
}

export interface OrderCustomer {
  id: number | null;
  name: string;
  email: string | null;
  phone: string | null;
  companyName: string | null;
  cui: string | null;
  regCom: string | null;
  /** Null when the order carries no address. */
  address: OrderAddress | null;
}

export interface OrderLine {
  productId: number | null;
  variantId: number | null;
  sku: string | null;
  name: string | null;
  quantity: number;
  unitPrice: number;
  taxRate: number | null;
  total: number;
}

/** A platform order as the daemon works with it. `raw` keeps the record exactly as the API sent it. */
export interface PlatformOrder {
  id: number;
  number: string;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  currency: string;
  sourceOrderId: string | null;
  customer: OrderCustomer;
  items: OrderLine[];
  subtotal: number;
  shippingTotal: number;
  discountTotal: number;
  taxTotal: number;
  total: number;
  awbNumber: string | null;
  invoiceNumber: string | null;
  createdAt: string;
  updatedAt: string;
  raw: Record<string, unknown>;
}

/** What changed on the platform after an order was imported (reaches the ERP as an update). */
export interface OrderChange {
  orderId: number;
  erpRef: string;
  /** 1, 2, 3... per order: the same change delivered again (after a crash) carries the same seq. */
  seq?: number;
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  previousStatus?: OrderStatus;
  previousPaymentStatus?: PaymentStatus;
}

export const ORDER_EVENT_KINDS = [
  'confirmed',
  'processing',
  'shipped',
  'cancelled',
  'returned',
  'paid',
  'invoiced',
  'awb',
] as const;
export type OrderEventKind = (typeof ORDER_EVENT_KINDS)[number];

/** A fulfilment fact from the ERP, to be applied on the platform. */
export interface OrderEvent {
  /** Stable identity of the event within the ERP (used for at-most-once in effect). */
  eventId: string;
  orderId?: number;
  erpRef?: string;
  kind: OrderEventKind;
  courier?: Courier;
  weight?: number;
  parcels?: number;
  codAmount?: number;
  note?: string;
  labels?: string[];
  notes?: string;
  paymentStatus?: PaymentStatus;
}

/** An order born in the ERP, to be created on the platform once per sourceOrderId. */
export interface OutgoingOrder {
  sourceOrderId: string;
  customerId?: number;
  customer?: {
    name: string;
    email?: string;
    phone?: string;
    companyName?: string;
    cui?: string;
    regCom?: string;
  };
  items: { sku: string; quantity: number; unitPrice?: number; taxRate?: number }[];
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  currency?: string;
  shippingTotal?: number;
  discountTotal?: number;
  source?: RecordSource;
}

/** What the platform answered to feedback, written back to the ERP side. */
export interface FeedbackResult {
  eventId: string;
  orderId: number;
  erpRef?: string;
  kind: OrderEventKind;
  awb?: { number: string; courier: string; codAmount: number | null };
  invoice?: { series: string; number: string | number; total: number | null };
  status?: OrderStatus;
}
