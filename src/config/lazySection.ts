import * as z from 'zod';

/**
 * A section of the configuration with a default, whose schema is built at its first parse. zod
 * returns a default as it is, without parsing it, so a configuration that leaves the section out
 * never builds the section's schema: building zod schemas is a good part of a short command's
 * start (`status`, `check`; bench/RESULTS.md, "CLI start"), and most files set a few sections.
 * Same results and messages as the schema built up front.
 */
export function lazySection<Schema extends z.ZodType>(
  build: () => Schema,
  value: z.output<Schema>,
): z.ZodDefault<z.ZodLazy<Schema>> {
  return z.lazy(build).default(value as never);
}
