// Covering arrays of strength 2 (Cohen et al., the AETG system): rows of values such that each value of each
// dimension meets each value of every other dimension in some row. A constructed walk sends one step per row, so that
// every pair of values is sent whatever the seed, in far fewer rows than the product of the dimensions.

export type Dimensions = Record<string, readonly string[]>;
export type Row<D extends Dimensions> = { [K in keyof D]: D[K][number] };

/** The pairs of values a row covers, as `dimension=value|dimension=value` keys. */
function pairsOf(row: Record<string, string>, names: readonly string[]): string[] {
  return names.flatMap((a, i) => names.slice(i + 1).map((b) => `${a}=${row[a]}|${b}=${row[b]}`));
}

/** Every row of the dimensions' product, in order (the first value of each dimension first). */
function product(dimensions: Dimensions, names: readonly string[]): Record<string, string>[] {
  return names.reduce<Record<string, string>[]>((rows, name) => rows.flatMap((row) => dimensions[name].map((value) => ({ ...row, [name]: value }))), [{}]);
}

/**
 * A covering array of strength 2, greedy and deterministic: each row is the row of the product that covers the most
 * pairs not covered yet (the first of them, on a tie), until none is left. Small dimensions only: the product is
 * searched whole for each row.
 */
export function pairwise<D extends Dimensions>(dimensions: D): Row<D>[] {
  const names = Object.keys(dimensions);
  const candidates = product(dimensions, names);
  if (candidates.length > 20_000) throw new Error(`pairwise: ${candidates.length} rows in the product, too many to search`);
  const uncovered = new Set(candidates.flatMap((row) => pairsOf(row, names)));
  const rows: Record<string, string>[] = [];
  // One dimension alone has no pair: each of its values is a row.
  if (names.length === 1) return candidates as Row<D>[];
  while (uncovered.size > 0) {
    let best = candidates[0];
    let most = -1;
    for (const row of candidates) {
      const gain = pairsOf(row, names).filter((pair) => uncovered.has(pair)).length;
      if (gain > most) [best, most] = [row, gain];
    }
    for (const pair of pairsOf(best, names)) uncovered.delete(pair);
    rows.push(best);
  }
  return rows as Row<D>[];
}
