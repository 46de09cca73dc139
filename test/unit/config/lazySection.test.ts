import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { configSchema } from '../../../src/config.js';
import { lazySection } from '../../../src/config/lazySection.js';

const PARSED_ONCE = { jitless: true } as const;

function counted() {
  let builds = 0;
  const schema = lazySection(
    () => {
      builds += 1;
      return z.strictObject({ size: z.number().int().min(1).default(4), name: z.string().optional() });
    },
    { size: 4 },
  );
  const parent = z.strictObject({ section: schema });
  return { parent, builds: () => builds };
}

describe('lazySection', () => {
  it('gives a configuration that leaves the section out its default without building the schema', () => {
    const { parent, builds } = counted();
    const first = parent.parse({}, PARSED_ONCE);
    const second = parent.parse({}, PARSED_ONCE);
    expect(first).toEqual({ section: { size: 4 } });
    expect(builds()).toBe(0);
    // A copy each time: a caller that changes its configuration changes no other one's.
    first.section.size = 9;
    expect(second.section.size).toBe(4);
    expect(parent.parse({}, PARSED_ONCE).section.size).toBe(4);
  });

  it("builds the schema once, at the first configuration that sets the section, with the eager schema's issues", () => {
    const { parent, builds } = counted();
    expect(parent.parse({ section: { name: 'a' } }, PARSED_ONCE)).toEqual({
      section: { size: 4, name: 'a' },
    });
    const eager = z.strictObject({
      section: z
        .strictObject({ size: z.number().int().min(1).default(4), name: z.string().optional() })
        .default({ size: 4 }),
    });
    const wrong = { section: { size: 0, nam: 'a' } };
    const lazyIssues = parent.safeParse(wrong, PARSED_ONCE).error?.issues;
    expect(lazyIssues).toHaveLength(2);
    expect(lazyIssues).toEqual(eager.safeParse(wrong, PARSED_ONCE).error?.issues);
    expect(builds()).toBe(1);
  });

  it('holds, for every section of the configuration, the default its schema gives an empty section', () => {
    const lazy = Object.entries(configSchema.shape).flatMap(([key, schema]) => {
      const def = (schema as z.ZodType)._zod.def as { type: string; innerType?: z.ZodType };
      return def.type === 'default' && def.innerType?._zod.def.type === 'lazy'
        ? [{ key, section: schema as z.ZodDefault<z.ZodType> }]
        : [];
    });
    expect(lazy.map(({ key }) => key)).toEqual(
      expect.arrayContaining([
        'sync',
        'orders',
        'products',
        'log',
        'tracing',
        'redis',
        'schedules',
        'server',
        'queue',
      ]),
    );
    for (const { key, section } of lazy) {
      const built = section.unwrap();
      expect({ key, value: section._zod.def.defaultValue }).toEqual({
        key,
        value: built.parse({}, PARSED_ONCE),
      });
    }
  });
});
