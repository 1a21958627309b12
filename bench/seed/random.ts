/**
 * Seeded randomness: the same seed gives the same data, ids included. mulberry32 is tiny and fast and
 * spreads well enough for made-up data; it is never used for anything secret.
 */

/** FNV-1a of a name, so each part of the data set draws from its own stream. */
function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i += 1) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class Random {
  private state: number;

  /** A stream of its own per name: adding draws to one table does not shift another's data. */
  constructor(seed: number, stream: string) {
    this.state = (hashName(stream) ^ Math.imul(seed, 0x9e3779b9)) >>> 0;
  }

  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** In [0, 1). */
  next(): number {
    return this.uint32() / 4_294_967_296;
  }

  /** An integer from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A real number from min to max. */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the choices, in proportion to its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let left = this.next() * total;
    for (const [choice, weight] of choices) {
      left -= weight;
      if (left < 0) return choice;
    }
    return choices.at(-1)![0];
  }

  /** `count` distinct items (all of them when there are fewer), in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const n = Math.min(count, pool.length);
    for (let i = 0; i < n; i += 1) {
      const j = i + Math.floor(this.next() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  }
}

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/**
 * Ids in the service's layout (UUIDv7: milliseconds first, so indexes stay compact) with the time part
 * taken from the row's creation time. The last 32 bits number every id made, so no two ever clash.
 */
export class IdFactory {
  private made = 0;

  constructor(private readonly random: Random) {}

  at(time: number): string {
    const high = Math.floor(time / 0x10000);
    const low = time % 0x10000;
    const randA = this.random.uint32() & 0xfff;
    const randB = this.random.uint32();
    // An odd multiplier permutes 32-bit numbers: still one per id made, no longer visibly counting.
    const count = Math.imul(this.made, 0x9e3779b1) >>> 0;
    this.made += 1;
    return (
      `${hex(high, 8)}-${hex(low, 4)}-7${hex(randA, 3)}-${hex(0x8000 | (randB & 0x3fff), 4)}-` +
      `${hex(randB >>> 18, 4)}${hex(count, 8)}`
    );
  }

  /** A random (version 4) UUID, as the service makes public form tokens. */
  token(): string {
    const [a, b, c, d] = [0, 1, 2, 3].map(() => this.random.uint32()) as [number, number, number, number];
    return (
      `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(0x8000 | (c & 0x3fff), 4)}-` +
      `${hex(c >>> 16, 4)}${hex(d, 8)}`
    );
  }
}

/**
 * Splits `total` into whole shares proportional to `weights` (largest remainders), so per-project
 * counts vary yet add up to exactly the planned total.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (weights.length === 0 || sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((s, n) => s + n, 0);
  const order = exact
    .map((x, i) => [x - Math.floor(x), i] as const)
    .sort((p, q) => q[0] - p[0] || p[1] - q[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

/** As apportion, but no share above its cap: what one cannot take goes to those with room. */
export function apportionWithin(
  total: number,
  weights: readonly number[],
  caps: readonly number[],
): number[] {
  const shares = apportion(total, weights).map((share, i) => Math.min(share, caps[i]!));
  let left = total - shares.reduce((s, n) => s + n, 0);
  while (left > 0) {
    const before = left;
    for (let i = 0; i < shares.length && left > 0; i += 1) {
      if (shares[i]! < caps[i]!) {
        shares[i]! += 1;
        left -= 1;
      }
    }
    if (left === before) break;
  }
  return shares;
}

/** Splits a whole number into parts by shares (sex or age mix), the parts adding up to it exactly. */
export function splitWhole(total: number, shares: readonly number[], random: Random): number[] {
  const jittered = shares.map((share) => share * random.between(0.8, 1.2));
  return apportion(total, jittered);
}
