/**
 * Cross-tabulated disaggregations (sex by age): a cross names two or more plain disaggregations of its
 * indicator, and its categories are its cells, one per combination of theirs, keyed by the categories
 * joined by `|` in the order of the crossed names (`female|15-24`).
 */

export const CELL_SEPARATOR = '|';
/** Cells of one cross at most: 3 sexes by 5 age bands by 2 is 30; a thousand is far past any form. */
export const MAX_CELLS = 1000;

export interface Dimension {
  name: string;
  categories: string[];
  /** The names a cross crosses; null or absent for a plain disaggregation. */
  crosses?: string[] | null;
}

export const isCross = (d: Dimension) => (d.crosses?.length ?? 0) > 0;

export const cellKey = (parts: readonly string[]) => parts.join(CELL_SEPARATOR);

/** Every combination of the crossed categories, the first dimension varying slowest. */
export function cellsOf(crossed: readonly { categories: readonly string[] }[]): string[][] {
  return crossed.reduce<string[][]>(
    (rows, d) => rows.flatMap((row) => d.categories.map((category) => [...row, category])),
    [[]],
  );
}

/** The plain dimensions a cross crosses, in its order (names compared as stored). */
export function crossedBy(cross: Dimension, dimensions: readonly Dimension[]): Dimension[] {
  return (cross.crosses ?? []).map(
    (name) => dimensions.find((d) => d.name === name) ?? { name, categories: [] },
  );
}

export interface Margin {
  /** The crossed disaggregation. */
  name: string;
  /** Its categories, each with the sum of the cells that hold it. */
  values: Record<string, number>;
}

const clean = (n: number) => Number(n.toPrecision(15));

/**
 * The margins of a cross from its cell values: for each crossed disaggregation, per category, the sum of
 * the cells with that category (a missing cell counts 0).
 */
export function marginsOf(cross: Dimension, dimensions: readonly Dimension[], cells: Record<string, number>) {
  const crossed = crossedBy(cross, dimensions);
  return crossed.map((d, position): Margin => {
    const values: Record<string, number> = Object.fromEntries(d.categories.map((c) => [c, 0]));
    for (const parts of cellsOf(crossed)) {
      const key = cellKey(parts);
      if (Object.hasOwn(cells, key))
        values[parts[position]!] = clean(values[parts[position]!]! + cells[key]!);
    }
    return { name: d.name, values };
  });
}
