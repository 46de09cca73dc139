import { join } from 'node:path';
import type { FeedbackResult, OrderChange, OrderCustomer, PlatformOrder } from '../../../domain/orders.js';
import type { ImportResult } from '../../ErpAdapter.js';
import type { ErpOrderLocation } from '../../ErpOrderLocation.js';
import {
  fileExists,
  removeStaleTempFiles,
  statIfExists,
  writeFileAtomic,
  writeNewFile,
  writeNewFileAtomic,
} from './atomicFile.js';
import type { OrderExchangePaths } from './orderExchangePaths.js';
import { LISTING_MAX_AGE_MS, OutboxListing } from './OutboxListing.js';
import { toXmlDocument } from './xmlDocument.js';

export type OutboxFormat = 'json' | 'xml';

/** Sub-folders of the orders outbox where an ERP may move the files it has read. */
const PROCESSED_DIRS = ['done', 'archive', 'processed'];

/**
 * The ERP's view of platform orders: `<id>.json|xml` in the orders folder (the file's existence
 * is the import), change files in the updates folder, answers to events in the results folder.
 * Every write is atomic, so the ERP never reads half a file and a crash leaves no partial one.
 */
export class OrderOutbox {
  #cleaned = false;
  readonly #listing: OutboxListing;

  constructor(
    private readonly paths: OrderExchangePaths,
    private readonly format: OutboxFormat,
    private readonly now: () => Date = () => new Date(),
    listingMaxAgeMs = LISTING_MAX_AGE_MS,
    /** Before an outbox folder that is missing is made: throws when the ERP's drop folder is not there. */
    private readonly beforeMakingFolder?: () => Promise<void>,
  ) {
    this.#listing = new OutboxListing(
      [paths.ordersDir, ...PROCESSED_DIRS.map((dir) => join(paths.ordersDir, dir))],
      listingMaxAgeMs,
    );
  }

  /** The name the ERP knows an imported order by, e.g. `1234.json`. */
  erpRefOf(orderId: number): string {
    return `${orderId}.${this.format}`;
  }

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    await this.#cleanOnce();
    const [name, other] = this.#importNames(order.id) as [string, string];
    // The folders' listing (read at most once a second) rules the places out without a stat per place
    // and order; a name it holds is looked up on disk (the ERP may have moved it since).
    if (await this.#listing.mayHold([name, other])) {
      const earlier = await this.#findImport(order.id);
      if (earlier) return { erpRef: earlier.name, alreadyImported: true };
    }
    const document = {
      imported_at: this.now().toISOString(),
      customer: customerDocument(order.customer),
      order: order.raw,
    };
    // What another process wrote after the listing was read lands in the outbox: in this format the
    // no-replace write finds it, in the other one the lookup beside the write does.
    const outcome = await writeNewFile(
      join(this.paths.ordersDir, name),
      this.#encode('order_import', document),
      {
        beforeMakingFolder: this.beforeMakingFolder,
        unlessExists: join(this.paths.ordersDir, other),
      },
    );
    if (outcome === 'stood-back') return { erpRef: other, alreadyImported: true };
    this.#listing.add(name);
    return { erpRef: name, alreadyImported: outcome === 'existed' };
  }

  /**
   * The file of an earlier import, where the ERP left it: its path, time and size, and the
   * sub-folder the ERP moved it into after reading it (null: still waiting in the orders folder).
   */
  async locateOrder(orderId: number): Promise<ErpOrderLocation | null> {
    // The ERP may move the file between finding and reading its stats: look again once.
    for (let attempt = 0; attempt < 2; attempt++) {
      const found = await this.#findImport(orderId);
      if (!found) return null;
      const stats = await statIfExists(found.path);
      if (!stats) continue;
      return {
        erpRef: found.name,
        place: found.path,
        at: stats.mtime.toISOString(),
        facts: { bytes: stats.size, movedTo: found.movedTo },
      };
    }
    return null;
  }

  /**
   * An earlier import in either format counts (switching formats must not import twice), also
   * when the ERP moved the file into done/ or archive/ after reading it.
   */
  async #findImport(orderId: number): Promise<{ name: string; path: string; movedTo: string | null } | null> {
    for (const name of this.#importNames(orderId)) {
      for (const movedTo of [null, ...PROCESSED_DIRS]) {
        const path = join(movedTo ? join(this.paths.ordersDir, movedTo) : this.paths.ordersDir, name);
        if (await fileExists(path)) return { name, path, movedTo };
      }
    }
    return null;
  }

  /** The names an import of the order may have: this format's first. */
  #importNames(orderId: number): string[] {
    return [this.format, this.format === 'json' ? 'xml' : 'json'].map((format) => `${orderId}.${format}`);
  }

  /**
   * One file per change: `<id>-<seq>.json`. The same change (same seq) delivered twice writes the
   * same name, so a redo after a crash cannot produce a second file for one change.
   */
  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    const suffix =
      change.seq ?? `${change.status ?? order.status}-${change.paymentStatus ?? order.paymentStatus}`;
    const path = join(this.paths.updatesDir, `${order.id}-${suffix}.${this.format}`);
    const document = {
      order_id: order.id,
      erp_ref: change.erpRef,
      seq: change.seq ?? null,
      changed_at: this.now().toISOString(),
      status: change.status ?? null,
      previous_status: change.previousStatus ?? null,
      payment_status: change.paymentStatus ?? null,
      previous_payment_status: change.previousPaymentStatus ?? null,
      order: order.raw,
    };
    // Never replaced: the first delivery of a change stands.
    await writeNewFileAtomic(path, this.#encode('order_update', document), {
      beforeMakingFolder: this.beforeMakingFolder,
    });
  }

  /** `<orderId>-<kind>.json`: the AWB number, the invoice or the status the platform confirmed. */
  async recordFeedback(result: FeedbackResult): Promise<void> {
    const path = join(this.paths.resultsDir, `${result.orderId}-${result.kind}.${this.format}`);
    const document = {
      event_id: result.eventId,
      order_id: result.orderId,
      erp_ref: result.erpRef ?? null,
      event: result.kind,
      status: result.status ?? null,
      awb: result.awb
        ? { number: result.awb.number, courier: result.awb.courier, cod_amount: result.awb.codAmount }
        : null,
      invoice: result.invoice
        ? { series: result.invoice.series, number: result.invoice.number, total: result.invoice.total }
        : null,
      recorded_at: this.now().toISOString(),
    };
    await writeFileAtomic(path, this.#encode('order_result', document));
  }

  /** `<sourceOrderId>.json` in the results folder: which platform order an ERP order became. */
  async recordOutgoingOrder(sourceOrderId: string, platformOrderId: number): Promise<void> {
    const safe = sourceOrderId.replace(/[^A-Za-z0-9_.-]/g, '_');
    const path = join(this.paths.resultsDir, `created-${safe}.${this.format}`);
    const document = {
      source_order_id: sourceOrderId,
      platform_order_id: platformOrderId,
      recorded_at: this.now().toISOString(),
    };
    await writeFileAtomic(path, this.#encode('order_created', document));
  }

  #encode(root: string, document: Record<string, unknown>): string {
    return this.format === 'xml' ? toXmlDocument(root, document) : `${JSON.stringify(document, null, 2)}\n`;
  }

  async #cleanOnce(): Promise<void> {
    if (this.#cleaned) return;
    this.#cleaned = true;
    await removeStaleTempFiles(this.paths.ordersDir);
    await removeStaleTempFiles(this.paths.updatesDir);
  }
}

/** The customer as erp-sync read it, whatever shape the platform sent (address included). */
function customerDocument(customer: OrderCustomer): Record<string, unknown> {
  const address = customer.address;
  return {
    id: customer.id,
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    company_name: customer.companyName,
    cui: customer.cui,
    reg_com: customer.regCom,
    address: address && {
      street: address.street,
      city: address.city,
      postal_code: address.postalCode,
      county: address.county,
      country: address.country,
    },
  };
}
