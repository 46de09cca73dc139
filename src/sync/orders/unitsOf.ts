/** Units per SKU of an order's lines, as the oversell guard counts them (lines without a SKU are not counted). */
export function unitsOf(
  lines: readonly { sku?: string | null; quantity: number }[],
): { sku: string; quantity: number }[] {
  return lines.flatMap((line) => (line.sku ? [{ sku: line.sku, quantity: line.quantity }] : []));
}
