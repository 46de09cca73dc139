import { describe, expect, it } from 'vitest';
import { ERP_CONFIG_SLICES, erpConfigSchema, erpConfigSliceOf } from '../../../src/erp/ErpConfig.js';

describe("the adapters' configuration slices", () => {
  it('puts every listed slice, and only those, into the erp union under its own type', () => {
    expect(erpConfigSchema.options).toHaveLength(ERP_CONFIG_SLICES.length);
    for (const slice of ERP_CONFIG_SLICES) {
      expect(erpConfigSliceOf(slice.type)).toBe(slice);
      // Known to the union: the problems are the slice's own keys, never its type.
      const result = slice.schema.safeParse({ type: slice.type });
      const union = erpConfigSchema.safeParse({ type: slice.type });
      expect(union.success).toBe(result.success);
      expect(union.error?.issues.map((i) => i.path.join('.'))).not.toContain('type');
    }
    expect(erpConfigSchema.safeParse({ type: 'nope' }).error?.issues[0]?.path).toEqual(['type']);
  });

  it("names env keys, paths and secrets that the slice's schema has", () => {
    for (const slice of ERP_CONFIG_SLICES) {
      const keys = [...slice.env.map((e) => e.path), ...slice.paths, ...slice.secrets.map((s) => s.path)];
      for (const path of keys) {
        // A value of the wrong type at that path is refused there: the key exists (not "unknown key").
        let value: unknown = 12345;
        for (const key of [...path].reverse()) value = { [key]: value };
        const issues = slice.schema.safeParse({ type: slice.type, ...(value as object) }).error?.issues ?? [];
        expect({
          type: slice.type,
          path,
          unknown: issues.some((i) => i.code === 'unrecognized_keys'),
        }).toEqual({
          type: slice.type,
          path,
          unknown: false,
        });
      }
    }
  });
});
