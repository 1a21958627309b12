import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { uploadQuotaExceeded } from '../errors/catalogue.js';
import { formatByteSize } from '../lib/byte-size.js';

/**
 * The bytes one module keeps in file storage for an organization (attachments, submissions' files).
 * The owner of the quota asks every module that keeps files (wired in `buildApp`) without importing them.
 */
export type StoredBytes = (db: Db, orgId: string) => Promise<number>;

/** What an upload counts against: its organization's quota, and its form's when a submission keeps it. */
export interface QuotaScope {
  orgId: string;
  /** The bytes the form's submissions keep now. */
  formBytes?: (db: Db) => Promise<number>;
}

/** What an upload may still bring, and the refusal naming the quota that leaves the least. */
export interface Room {
  bytes: number;
  exceeded: () => Error;
}

/** First key of the two-key advisory lock on an organization's stored files; any fixed number would do. */
const STORED_FILES_LOCK = 72_160_536;

/**
 * FORM_FILES_QUOTA and ORG_FILES_QUOTA. A file's size is known only once it is stored, so a quota is
 * checked twice: `room` before the body is read (a full quota refuses the first file part before a byte
 * of it is written, and a body is cut once it brings more than was left), and `reserve` in the writing
 * transaction with the sizes received, after the organization's other file writes. Every write that adds
 * a stored file calls `reserve`, so what is committed never passes a quota; a concurrent burst only
 * holds, for the time of its requests, files that are then refused and removed again.
 */
export class FileQuota {
  constructor(
    private readonly limits: Config['fileQuotas'],
    private readonly readers: readonly StoredBytes[],
  ) {}

  private async orgBytes(db: Db, orgId: string): Promise<number> {
    let total = 0;
    // One after the other: inside a transaction they share one connection anyway.
    for (const read of this.readers) total += await read(db, orgId);
    return total;
  }

  private formExceeded = () =>
    uploadQuotaExceeded(
      `Stored files of this form would exceed its quota of ${formatByteSize(this.limits.formBytes)}`,
    );

  private orgExceeded = () =>
    uploadQuotaExceeded(
      `Stored files of this organization would exceed its quota of ${formatByteSize(this.limits.orgBytes)}`,
    );

  /** Read without a lock, before the body: a concurrent write may take some of it (`reserve` then refuses). */
  async room(db: Db, scope: QuotaScope): Promise<Room> {
    const org = {
      bytes: this.limits.orgBytes - (await this.orgBytes(db, scope.orgId)),
      exceeded: this.orgExceeded,
    };
    if (!scope.formBytes) return clamp(org);
    const form = { bytes: this.limits.formBytes - (await scope.formBytes(db)), exceeded: this.formExceeded };
    return clamp(form.bytes <= org.bytes ? form : org);
  }

  /**
   * Waits for the organization's other writes of files to commit; held to the end of the transaction.
   * Taken before any row lock of the write (the form, the project), so every writer takes them in one order.
   */
  async lock(tx: Db, orgId: string): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${STORED_FILES_LOCK}, hashtext(${orgId}))`);
  }

  /** In the transaction that stores `adding` bytes, under `lock`: refuses what would pass a quota. */
  async reserve(tx: Db, scope: QuotaScope, adding: number): Promise<void> {
    if (adding === 0) return;
    await this.lock(tx, scope.orgId);
    if (scope.formBytes && (await scope.formBytes(tx)) + adding > this.limits.formBytes) {
      throw this.formExceeded();
    }
    if ((await this.orgBytes(tx, scope.orgId)) + adding > this.limits.orgBytes) throw this.orgExceeded();
  }
}

/** A quota passed already (lowered since, or by files kept before it existed) leaves no room, not less. */
const clamp = (room: Room): Room => ({ ...room, bytes: Math.max(room.bytes, 0) });
