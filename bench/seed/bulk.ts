/**
 * Bulk inserts: a batch of rows goes as one statement, `INSERT ... SELECT ... FROM unnest(...)`, with one
 * parameter per column. Each parameter is a PostgreSQL array literal built here and cast from text, so
 * node-postgres and PGlite read it alike (PGlite cannot serialize arrays of enum values itself).
 */

/** What runs the SQL: a pg Pool's `query`, or the test database's client. */
export type Query = (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;

export interface ProgressEvent {
  table: string;
  done: number;
  total: number;
  /** Set on the table's last event, with the seconds it took. */
  seconds?: number;
}
export type OnProgress = (event: ProgressEvent) => void;

/** A column and its PostgreSQL type; `text[]` columns take array literals, enums their type name. */
export type Column = readonly [name: string, type: string];
export type Cell = string | number | boolean | null | undefined | Date | object;

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

function element(value: Cell): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  const text =
    typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
}

function insertStatement(table: string, columns: readonly Column[]): string {
  const names = columns.map(([name]) => `"${name}"`).join(', ');
  const unnest = columns.map(([, type], i) => `$${i + 1}::text::${type === 'text[]' ? 'text' : type}[]`);
  const select = columns.map(([, type], i) => (type === 'text[]' ? `c${i}::text[]` : `c${i}`));
  const aliases = columns.map((_, i) => `c${i}`).join(', ');
  return `INSERT INTO "${table}" (${names}) SELECT ${select.join(', ')} FROM unnest(${unnest.join(', ')}) AS u(${aliases})`;
}

export interface WriterOptions {
  query: Query;
  onProgress?: OnProgress;
  /** Batches of one table in flight at once (a pg Pool runs them on separate connections). */
  concurrency?: number;
  batchSize?: number;
}

/** Writes tables in batches and counts the rows written per table. */
export class Writer {
  readonly counts: Record<string, number> = {};
  private readonly concurrency: number;
  private readonly batchSize: number;

  constructor(private readonly options: WriterOptions) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.batchSize = options.batchSize ?? 10_000;
  }

  query(sql: string, params?: unknown[]) {
    return this.options.query(sql, params);
  }

  /**
   * Inserts the rows (values in column order) of one table; `total` is the expected count, for the
   * progress bar. Every batch has finished when this returns. `ordered`: one batch at a time, so an
   * identity column numbers the rows in the order given, on every run.
   */
  async insert(
    table: string,
    columns: readonly Column[],
    total: number,
    rows: Iterable<readonly Cell[]>,
    batchSize = this.batchSize,
    { ordered = false }: { ordered?: boolean } = {},
  ): Promise<void> {
    // In order: the next batch is built while one is written, and waits for it.
    const concurrency = ordered ? 2 : this.concurrency;
    let previous: Promise<unknown> = Promise.resolve();
    const started = performance.now();
    const statement = insertStatement(table, columns);
    const inFlight = new Set<Promise<void>>();
    // The first failed batch; the others in flight are let finish, then it is thrown.
    const failed: { error?: Error } = {};
    let done = 0;
    const report = (extra: Partial<ProgressEvent> = {}) =>
      this.options.onProgress?.({ table, done, total: Math.max(total, done), ...extra });

    const send = async (cells: string[][], size: number) => {
      const write = () =>
        this.options.query(
          statement,
          cells.map((column) => `{${column.join(',')}}`),
        );
      const written = ordered ? previous.then(write) : write();
      previous = written.catch(() => undefined);
      const sent = written
        .then(() => {
          done += size;
          report();
        })
        .catch((err: unknown) => {
          failed.error ??= err instanceof Error ? err : new Error(String(err));
        })
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
      if (failed.error) throw failed.error;
    };

    report();
    let cells: string[][] = columns.map(() => []);
    let size = 0;
    for (const row of rows) {
      for (let c = 0; c < columns.length; c += 1) cells[c]!.push(element(row[c]));
      size += 1;
      if (size === batchSize) {
        await send(cells, size);
        cells = columns.map(() => []);
        size = 0;
      }
    }
    if (size > 0) await send(cells, size);
    await Promise.all(inFlight);
    if (failed.error) throw failed.error;
    this.counts[table] = (this.counts[table] ?? 0) + done;
    report({ total: done, seconds: (performance.now() - started) / 1000 });
  }
}
