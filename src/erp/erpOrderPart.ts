import { ErpSyncError } from '../domain/errors.js';
import type { ErpAdapter, ErpOrderParts } from './ErpAdapter.js';

/**
 * The adapter as the part of the order exchange it says it does (`capabilities.orders`), or null
 * when it does not: the pipeline that needs the part then has nothing to do. The contract suite
 * checks that an adapter implements exactly the parts its capabilities name.
 */
export function erpOrderPart<K extends keyof ErpOrderParts>(
  erp: ErpAdapter,
  part: K,
): (ErpAdapter & ErpOrderParts[K]) | null {
  return erp.capabilities.orders[part] ? (erp as ErpAdapter & ErpOrderParts[K]) : null;
}

/** erpOrderPart for a step that only runs once its pipeline found the part (a bug otherwise). */
export function requireErpOrderPart<K extends keyof ErpOrderParts>(
  erp: ErpAdapter,
  part: K,
): ErpAdapter & ErpOrderParts[K] {
  const found = erpOrderPart(erp, part);
  if (!found) throw new ErpSyncError('internal', `the ${erp.kind} adapter does not do orders ${part}`);
  return found;
}
