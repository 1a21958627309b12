import { Readable } from 'node:stream';

/**
 * A stream of `pieces` whose first piece is read before it is returned: an answer streamed from the
 * database fails before its status line is sent (a refusal, or a read that falls back to another server)
 * rather than breaking off after it. The rest is read as the client takes it, one piece ahead at most.
 */
export async function readAhead(pieces: AsyncGenerator<string>): Promise<Readable> {
  const first = await pieces.next();
  async function* all(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* pieces;
  }
  return Readable.from(all(), { highWaterMark: 1 });
}
