import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { DatabaseStorage } from './database-storage.js';
import {
  filesDirectory,
  LocalDiskStorage,
  StoredFileMissing,
  type FileStorage,
  type MovableStorage,
} from './file-storage.js';

/**
 * Writes go to the chosen storage; a file not found there is read from the other one. So the service
 * keeps serving every file while `npm run files:migrate` moves them from one to the other after
 * FILE_STORAGE changed. Deletes go to both, so a file deleted before it was moved is not moved later.
 */
export class ChosenStorage implements FileStorage {
  constructor(
    readonly chosen: MovableStorage,
    readonly other: MovableStorage,
  ) {}

  put(key: string, content: Readable | Buffer): Promise<void> {
    return this.chosen.put(key, content);
  }

  async get(key: string): Promise<Readable> {
    try {
      return await this.chosen.get(key);
    } catch (err) {
      if (!(err instanceof StoredFileMissing)) throw err;
      return this.other.get(key);
    }
  }

  async delete(key: string): Promise<void> {
    await this.chosen.delete(key);
    await this.other.delete(key);
  }
}

/** Both storages, whichever FILE_STORAGE chose: `files:migrate` moves between them. */
export function storages(config: Pick<Config, 'dataDir'>, database: Pick<Database, 'db' | 'driver'>) {
  return {
    filesystem: new LocalDiskStorage(filesDirectory(config)),
    database: new DatabaseStorage(database),
  } satisfies Record<Config['fileStorage'], MovableStorage>;
}

/** The storage FILE_STORAGE chose, reading the files not yet moved out of the other one. */
export function createFileStorage(
  config: Pick<Config, 'dataDir' | 'fileStorage'>,
  database: Pick<Database, 'db' | 'driver'>,
): ChosenStorage {
  const both = storages(config, database);
  return config.fileStorage === 'database'
    ? new ChosenStorage(both.database, both.filesystem)
    : new ChosenStorage(both.filesystem, both.database);
}
