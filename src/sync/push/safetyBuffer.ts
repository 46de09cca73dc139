import type { ItemKey } from '../../domain/records.js';

export interface SafetyBufferConfig {
  units: number;
  rules: { pattern: string; units: number }[];
}

/** Units held back per item: the first rule whose glob matches the SKU or variant SKU, else the global units. */
export type SafetyBuffer = (key: ItemKey) => number;

export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

export function createSafetyBuffer(config: SafetyBufferConfig): SafetyBuffer {
  const rules = config.rules.map((rule) => ({ regexp: globToRegExp(rule.pattern), units: rule.units }));
  if (rules.length === 0) return () => config.units;
  return (key) => {
    for (const rule of rules) {
      if (rule.regexp.test(key.sku) || (key.variantSku !== undefined && rule.regexp.test(key.variantSku))) {
        return rule.units;
      }
    }
    return config.units;
  };
}

/** The quantity pushed: ERP stock less units held by open platform orders, less the buffer, never below 0. */
export function pushedQuantity(erpQuantity: number, heldByOrders: number, buffer: number): number {
  return Math.max(0, erpQuantity - heldByOrders - buffer);
}
