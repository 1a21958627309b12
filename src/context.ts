import type { Tally } from './lib/tally.js';
import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import type { Db } from './db/client.js';
import type { ReadRouting } from './db/replica.js';
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { Memberships } from './http/pipeline/access.js';
import type { Sessions } from './http/pipeline/session.js';
import type { FileQuota } from './storage/file-quota.js';
import type { FileStorage, StoredFileKeys } from './storage/file-storage.js';

/** What modules receive from buildApp: configuration and shared parts, nothing global. */
export interface AppContext {
  config: Config;
  db: Db;
  /**
   * Where heavy reads run (report assembly, dashboard, exports, shared reports): the read replica when
   * DATABASE_REPLICA_URL is set and it is fit for the read, else `db`. Writes never go through it.
   */
  replica: ReadRouting;
  sessions: Sessions;
  /** Who belongs to which organization (answered by the orgs module). */
  memberships: Memberships;
  /** The per-IP-and-email limit of login, token, register and forgot-password. */
  authLimit: preHandlerAsyncHookHandler;
  /** The per-IP limit of multipart public submissions (PUBLIC_UPLOAD_RATE_LIMIT_MAX), on top of the public one. */
  uploadLimit: preHandlerAsyncHookHandler;
  /** Where uploaded files live (attachments, form files). */
  storage: FileStorage;
  /** Every module that keeps files under a project: deleting a project or program removes them. */
  storedFileKeys: readonly StoredFileKeys[];
  /** FORM_FILES_QUOTA and ORG_FILES_QUOTA, over every module's stored files: each upload checks it. */
  fileQuota: FileQuota;
  /** Wakes the in-process outbox worker after a commit that queued email. */
  mailQueued: () => void;
  /** Wakes the in-process webhook worker after a commit that queued a delivery (a ping, a redelivery). */
  webhooksQueued: () => void;
  /** What the service takes for now (one clock, so tests can move it). */
  clock: Clock;
  /** Form submissions stored but not counted in this process, by reason (a metric). */
  notCounted: Tally;
}
