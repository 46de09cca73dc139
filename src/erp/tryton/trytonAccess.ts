import type { TrytonClient } from './TrytonClient.js';

type Mode = 'read' | 'write' | 'create';

/**
 * Every model the adapter touches and how: what erp-sync's Tryton user must be allowed
 * (docs/tryton-adapter.md lists the groups that give it). Reads: stock (moves, products per
 * warehouse), prices (templates, accounting categories, taxes), events (shipments, invoices, sales),
 * order imports (products, taxes, currencies, customers). Writes: a sale with its lines, and the
 * party with its address and contacts when the customer is new.
 */
export const TRYTON_ACCESS: Readonly<Record<string, readonly Mode[]>> = {
  'product.product': ['read'],
  'product.template': ['read'],
  'product.category': ['read'],
  'stock.location': ['read'],
  'stock.move': ['read'],
  'stock.shipment.out': ['read'],
  'account.invoice': ['read'],
  'account.tax': ['read'],
  'currency.currency': ['read'],
  'sale.sale': ['read', 'create', 'write'],
  'sale.line': ['read', 'create'],
  'party.party': ['read', 'create'],
  'party.address': ['read', 'create'],
  'party.contact_mechanism': ['read', 'create'],
};

/** The sale buttons the adapter presses: quote (and confirm) on import, draft and cancel on a cancellation. */
export function saleButtons(confirm: boolean): string[] {
  return confirm ? ['quote', 'confirm', 'draft', 'cancel'] : ['quote', 'draft', 'cancel'];
}

type Access = Record<string, Partial<Record<Mode, unknown>>>;

/**
 * What erp-sync's user may not do of what the adapter does, asked without writing anything:
 * `ir.model.access.get_access` (the rights the Tryton client itself asks for) for the models, and
 * the groups of the sale buttons against the user's groups (a button without groups needs write
 * on the sale). Returns one entry per missing right (`create sale.sale`, `button sale.sale quote
 * (group Sales)`); empty when every one is granted.
 */
export async function missingTrytonAccess(
  rpc: TrytonClient,
  userGroups: readonly number[],
  buttons: readonly string[],
): Promise<string[]> {
  const models = Object.keys(TRYTON_ACCESS);
  const access = (await rpc.call('model.ir.model.access.get_access', [models, rpc.context])) as Access;
  const missing: string[] = [];
  for (const model of models) {
    for (const mode of TRYTON_ACCESS[model]!) if (!access[model]?.[mode]) missing.push(`${mode} ${model}`);
  }
  const found = await rpc.model<{ name: string; groups: number[] }[]>('ir.model.button', 'search_read', [
    [
      ['model.model', '=', 'sale.sale'],
      ['name', 'in', [...buttons]],
    ],
    0,
    null,
    null,
    ['name', 'groups'],
  ]);
  const mine = new Set(userGroups);
  const refused = found.filter((b) => b.groups.length > 0 && !b.groups.some((g) => mine.has(g)));
  if (refused.length === 0) return missing;
  const groupIds = [...new Set(refused.flatMap((b) => b.groups))];
  const names = new Map(
    (
      await rpc
        .model<{ id: number; name: string }[]>('res.group', 'read', [groupIds, ['name']])
        .catch(() => [] as { id: number; name: string }[])
    ).map((g) => [g.id, g.name]),
  );
  for (const button of refused) {
    const groups = button.groups.map((id) => names.get(id) ?? `#${id}`).join(' or ');
    missing.push(`button sale.sale ${button.name} (group ${groups})`);
  }
  return missing;
}
