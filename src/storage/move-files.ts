import { StoredFileMissing, type MovableStorage } from './file-storage.js';

export interface MoveCounts {
  /** Copied to the destination, checked, and removed from the source. */
  moved: number;
  /** Found complete in the destination already (a run stopped before removing it): removed from the source. */
  alreadyThere: number;
  /** Deleted by the service while being moved: nothing left of them on either side. */
  gone: number;
  /** Left in the source: copying or checking failed (`onFailure` was told why). */
  failed: number;
}

export interface MoveOptions {
  onFailure?: (key: string, problem: string) => void;
  /** Called after each file with the counts so far. */
  onProgress?: (counts: Readonly<MoveCounts>) => void;
}

/**
 * Moves every file from one storage to the other: copied, its size checked in the destination, then
 * removed from the source. Nothing is removed before its copy is complete, so a run stopped anywhere
 * loses nothing, and running it again takes up where it was: what is moved is no longer in the source,
 * and a copy completed but not yet removed from the source is not copied again. Runs beside the
 * service, which reads a file from whichever side holds it.
 */
export async function moveFiles(
  from: MovableStorage,
  to: MovableStorage,
  options: MoveOptions = {},
): Promise<MoveCounts> {
  const counts: MoveCounts = { moved: 0, alreadyThere: 0, gone: 0, failed: 0 };
  for await (const key of from.keys()) {
    try {
      counts[await moveOne(from, to, key)] += 1;
    } catch (err) {
      counts.failed += 1;
      options.onFailure?.(key, err instanceof Error ? err.message : String(err));
    }
    options.onProgress?.(counts);
  }
  return counts;
}

async function moveOne(
  from: MovableStorage,
  to: MovableStorage,
  key: string,
): Promise<'moved' | 'alreadyThere' | 'gone'> {
  const size = await from.size(key);
  if (size === null) return 'gone';
  if ((await to.size(key)) === size) {
    await from.delete(key);
    return 'alreadyThere';
  }
  try {
    await to.put(key, await from.get(key));
  } catch (err) {
    if (!(err instanceof StoredFileMissing)) throw err;
    await to.delete(key);
    return 'gone';
  }
  const copied = await to.size(key);
  if (copied !== size) {
    await to.delete(key);
    throw new Error(`the copy holds ${copied ?? 'no'} bytes, the original ${size}: left where it was`);
  }
  // Deleted by the service while it was copied: the copy must not outlive it.
  if ((await from.size(key)) === null) {
    await to.delete(key);
    return 'gone';
  }
  await from.delete(key);
  return 'moved';
}
