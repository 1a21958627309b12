import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { ReadRouting } from '../../db/replica.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, invalidTransition, notFound } from '../../errors/catalogue.js';
import { hashToken, UUID_PATTERN } from '../../lib/ids.js';
import { findAttachment } from '../files/index.js';
import { StoredFileMissing, type FileStorage } from '../../storage/file-storage.js';
import {
  findReportByShareHash,
  findShareLinkByHash,
  lockReport,
  updateReport,
  type ReportRow,
  type SharedRow,
} from './reports.repo.js';
import { reportView } from './report-view.js';
import { shareUrl } from './share-links.js';

/** A valid link whose report the replica has not replayed yet. */
class NotReplayed extends Error {}

const isActive = (row: Pick<ReportRow, 'shareToken' | 'shareExpiresAt'>, now: Date) =>
  row.shareToken !== null && (row.shareExpiresAt === null || row.shareExpiresAt > now);

/** A fresh link: a UUIDv4 (122 random bits), found again only by its SHA-256. */
function newToken() {
  const shareToken = randomUUID();
  return { shareToken, shareTokenHash: hashToken(shareToken) };
}

/**
 * Share links of reports (SPEC.md "Report share link"): the editors' side, and the donors' side that
 * reads a report, and its attachments, by token while the link is valid.
 */
export class SharingService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly storage: FileStorage,
    private readonly replica: ReadRouting,
  ) {}

  private link(row: ReportRow) {
    return {
      shareToken: row.shareToken!,
      shareUrl: shareUrl(this.config, row.shareToken!),
      shareExpiresAt: row.shareExpiresAt,
    };
  }

  private async change(member: Member, id: string, work: (row: ReportRow, now: Date) => Partial<ReportRow>) {
    return transaction(this.db, async (tx) => {
      const row = await lockReport(tx, member.orgId, id);
      if (!row) throw notFound('Report');
      return updateReport(tx, member.orgId, id, work(row, new Date()));
    });
  }

  /**
   * Opens the link, or on an active one keeps the token and sets the expiry when `expiresAt` is sent. An
   * expired link is replaced by a new token, so the old URL never comes back to life.
   */
  async share(member: Member, id: string, input: { expiresAt?: string | null } | null | undefined) {
    const expiresAt = input?.expiresAt;
    const expiry = expiresAt === undefined || expiresAt === null ? expiresAt : new Date(expiresAt);
    if (expiry && expiry <= new Date()) throw badRequest('expiresAt must be in the future');
    const row = await this.change(member, id, (report, now) => {
      if (isActive(report, now)) return expiry === undefined ? {} : { shareExpiresAt: expiry };
      return { ...newToken(), shareExpiresAt: expiry ?? null };
    });
    return this.link(row);
  }

  /** A new token for the same report: the old URL answers 404 at once. The expiry stays. */
  async regenerate(member: Member, id: string) {
    const row = await this.change(member, id, (report) => {
      if (report.shareToken === null) throw invalidTransition('Report is not shared');
      return newToken();
    });
    return this.link(row);
  }

  async revoke(member: Member, id: string): Promise<void> {
    await this.change(member, id, () => ({ shareToken: null, shareTokenHash: null, shareExpiresAt: null }));
  }

  /** The report behind a valid link; unknown, revoked or expired tokens all answer 404. */
  private async shared(token: string): Promise<SharedRow> {
    // Not a token we hand out: no need to ask the database.
    if (!UUID_PATTERN.test(token)) throw notFound('Report');
    const row = await findReportByShareHash(this.db, hashToken(token.toLowerCase()));
    if (!row || !isActive(row, new Date())) throw notFound('Report');
    return row;
  }

  /**
   * The report, perhaps megabytes, from the read replica, while the primary says beside it whether the
   * link is valid and whether the organization shows quality notes: a revoked or replaced link stops at
   * once, as do notes turned off, and a link shared a moment ago, which the replica has not replayed yet,
   * is read from the primary.
   */
  async publicReport(token: string) {
    const row = await this.replica.read(
      async (db, onReplica) => {
        if (!onReplica || !UUID_PATTERN.test(token)) return this.shared(token);
        const hash = hashToken(token.toLowerCase());
        const [link, report] = await Promise.all([
          findShareLinkByHash(this.db, hash),
          findReportByShareHash(db, hash),
        ]);
        if (!link || !isActive(link, new Date())) throw notFound('Report');
        if (!report) throw new NotReplayed();
        return { ...report, ...link };
      },
      { staleIf: (error) => error instanceof NotReplayed },
    );
    // The setting as the primary has it now, not as it was when the report was assembled.
    return reportView(
      row,
      this.config,
      { shareToken: row.shareToken! },
      { qualityNotes: row.showQualityNotes },
    );
  }

  /** An attachment listed in the shared report that still exists. */
  async publicAttachment(token: string, attachmentId: string) {
    const row = await this.shared(token);
    const listed = row.content.attachments.some((file) => file.id === attachmentId);
    const attachment = listed ? await findAttachment(this.db, row.orgId, attachmentId) : undefined;
    if (!attachment || attachment.projectId !== row.projectId) throw notFound('Attachment');
    try {
      return { ...attachment, stream: await this.storage.get(attachment.storageKey) };
    } catch (err) {
      if (err instanceof StoredFileMissing) throw notFound('Attachment');
      throw err;
    }
  }
}
