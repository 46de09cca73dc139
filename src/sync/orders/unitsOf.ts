/** Units per SKU of an order's lines, as the oversell guard counts them (lines without a SKU are not counted). */
export function unitsOf(
  lines: readonly { sku?: string | null; quantity: number }[],
): { sku: string; quantity: number }[] {
  // A loop, not flatMap: no array per line (the poll and each import count every order's lines).
  const units: { sku: string; quantity: number }[] = [];
  for (const line of lines) if (line.sku) units.push({ sku: line.sku, quantity: line.quantity });
  return units;
}
