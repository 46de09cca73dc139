import { describe, expect, it } from 'vitest';
import {
  isPushPipeline,
  perPushPipeline,
  PUSH_KINDS,
  PUSH_PIPELINES,
} from '../../../../src/sync/push/pushKinds.js';
import { pricesPush } from '../../../../src/sync/push/pricesPush.js';
import { stockPush } from '../../../../src/sync/push/stockPush.js';

describe('the push kinds registry', () => {
  it('holds stock then prices, each under its own name', () => {
    expect(PUSH_PIPELINES).toEqual(['stock', 'prices']);
    expect(PUSH_KINDS.stock).toBe(stockPush);
    expect(PUSH_KINDS.prices).toBe(pricesPush);
    for (const pipeline of PUSH_PIPELINES) expect(PUSH_KINDS[pipeline].pipeline).toBe(pipeline);
  });

  it('tells the push pipelines from the others', () => {
    expect(PUSH_PIPELINES.every(isPushPipeline)).toBe(true);
    expect(['orders', 'catalog', 'products', 'toString', ''].some(isPushPipeline)).toBe(false);
  });

  it('builds one value per push pipeline', () => {
    expect(perPushPipeline((pipeline) => pipeline.length)).toEqual({ stock: 5, prices: 6 });
  });

  it('holds back units from stock only', () => {
    expect(stockPush.holdsBack).toBe(true);
    expect(pricesPush.holdsBack).toBe(false);
  });
});
