import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'safe-stable-stringify';
import type { Db } from '../../db/client.js';
import { sessionOf } from './access.js';
import { withCommitMark, type CommitMark } from '../../db/commit-marks.js';
import {
  badRequest,
  conflict,
  forbidden,
  idempotencyConflict,
  idempotencyInProgress,
} from '../../errors/catalogue.js';

/**
 * Whether a POST takes an `Idempotency-Key`, and whose answers the key keeps, declared in the route's
 * config. `user`: the signed-in caller's. `{ scope, token }`: a public route whose caller is the link
 * token in path parameter `token`, kept as `<scope>:<token>`; anyone holding the link can send it, so
 * only its success is kept. `none`: the header is ignored (a route with no caller to keep answers for,
 * or idempotent by nature). The other methods take no key: a retried PATCH or DELETE finds its change made.
 */
export type Idempotency = 'user' | { scope: string; token: string } | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether a POST takes an `Idempotency-Key`, and whose answers it keeps (`Idempotency`). */
    idempotency?: Idempotency;
  }
}

/** Whether a route with this config takes an `Idempotency-Key`. */
export function takesIdempotencyKey(config: { idempotency?: Idempotency } | undefined): boolean {
  const declared = config?.idempotency;
  return declared !== undefined && declared !== 'none';
}

export const IDEMPOTENCY_KEY_MALFORMED = 'Idempotency-Key must be 1 to 255 visible characters';
export const IDEMPOTENCY_KEY_REUSED = 'Idempotency-Key was used with another request';
export const IDEMPOTENCY_KEY_RUNNING = 'A request with this Idempotency-Key is still running';
export const IDEMPOTENCY_ANSWER_LOST =
  'The request with this Idempotency-Key was carried out, but its answer was lost: read the resource instead of retrying';

/**
 * A running claim older than this is taken over (its process died mid-request). Longer than a request
 * takes to arrive (REQUEST_TIMEOUT, 50 s by default) and run, waits for a resource's lock included: a
 * claim taken over while its request still ran would run it twice. Until then a retry gets 409.
 */
export const takeOverSecondsFor = (requestSeconds: number) => Math.max(300, 2 * requestSeconds);

/** How long the first completed answer is kept (issue 23). */
export const IDEMPOTENCY_KEEP_SECONDS = 24 * 60 * 60;

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** A keyed request: its caller's scope, the key, and a SHA-256 digest of what was asked. */
export interface KeyedRequest {
  scope: string;
  key: string;
  digest: string;
  /** A reporter's assigned projects (sorted ids) when the key is claimed; null for other callers. */
  projects: string[] | null;
}

/** What a replay sends again; Set-Cookie is never kept. */
export interface KeptAnswer {
  status: number;
  contentType: string | null;
  location: string | null;
  /** null for an answer without a body (204). */
  body: string | null;
}

export type Claim =
  | { kind: 'claimed'; claimId: string }
  | { kind: 'another-request' }
  | { kind: 'running' }
  /** Its write committed, its answer is not recorded: `lost` once the take-over time has passed. */
  | { kind: 'committed'; lost: boolean }
  | { kind: 'completed'; answer: KeptAnswer; projects: string[] | null };

/**
 * Where keys and their answers are kept. The idempotency module owns the table and answers
 * (src/modules/idempotency); `src/http` imports no module, so `buildApp` hands it to this hook.
 */
export interface IdempotencyKeys {
  /**
   * Atomically claims the key for this request when it is new, expired, or held by a running claim
   * taken more than `takeOverSeconds` ago (a process that died mid-request); otherwise tells what
   * holds it.
   */
  claim(
    db: Db,
    request: KeyedRequest,
    times: { keepSeconds: number; takeOverSeconds: number },
  ): Promise<Claim>;
  /**
   * Marks the claim `committed` inside the transaction `tx` of the request's work (a committed write is
   * then never run again); false when the claim is no longer this request's (taken over).
   */
  mark(tx: Db, request: KeyedRequest, claimId: string): Promise<boolean>;
  /** Records the answer of the claim `claimId`, running or committed. */
  complete(
    db: Db,
    request: KeyedRequest,
    claimId: string,
    answer: KeptAnswer,
    keepSeconds: number,
  ): Promise<void>;
  /** Lets the key run again (the answer was not kept); only the claim `claimId` is released. */
  release(db: Db, request: KeyedRequest, claimId: string): Promise<void>;
}

/**
 * `Idempotency-Key` on the routes that declare one (above): after access and body validation, the first
 * request with a key runs and its answer is kept; a retry with the same request gets that answer again
 * with `Idempotent-Replayed: true` and runs nothing; another request with the key is 422, and a retry
 * while the first still runs is 409. Without the header nothing changes. A claim left running by a
 * process that died is taken over after `takeOverSeconds` (`takeOverSecondsFor`).
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Db,
  keys: IdempotencyKeys,
  options: {
    takeOverSeconds: number;
    /** The projects assigned to a reporter (answered by the projects module). */
    reporterProjects?: (db: Db, orgId: string, userId: string) => Promise<string[]>;
  },
): void {
  const held = new WeakMap<
    FastifyRequest,
    { request: KeyedRequest; claimId: string; bodyCompared: boolean; byLink: boolean; commit: CommitMark }
  >();
  const times = { keepSeconds: IDEMPOTENCY_KEEP_SECONDS, takeOverSeconds: options.takeOverSeconds };
  const retries = new BackgroundRetries();
  const takeOverMs = options.takeOverSeconds * 1000;
  const reporterProjects = async (request: FastifyRequest) => {
    const member = request.member;
    if (member?.role !== 'reporter' || !options.reporterProjects) return null;
    return [...(await options.reporterProjects(db, member.orgId, member.userId))].sort();
  };

  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions;
    const declared = route.config.idempotency;
    if (!route.url || declared === undefined || declared === 'none') return;
    const key = request.headers['idempotency-key'];
    // A path its route refuses on its own validation (attachValidation: a malformed form token) claims nothing.
    if (key === undefined || request.validationError?.validationContext === 'params') return;
    if (typeof key !== 'string' || !VISIBLE_ASCII.test(key)) {
      throw badRequest({
        in: 'header',
        path: '/idempotency-key',
        rule: 'pattern',
        message: IDEMPOTENCY_KEY_MALFORMED,
      });
    }
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const bodyCompared = mediaType !== 'multipart/form-data';
    const keyed: KeyedRequest = {
      scope: scopeOf(request, declared),
      key,
      digest: digestOf(request, route.url, mediaType, bodyCompared),
      projects: await reporterProjects(request),
    };
    const claim = await keys.claim(db, keyed, times);
    switch (claim.kind) {
      case 'claimed': {
        const { claimId } = claim;
        const commit: CommitMark = {
          committed: false,
          active: true,
          async mark(tx) {
            if (!(await keys.mark(tx, keyed, claimId))) {
              throw idempotencyInProgress(IDEMPOTENCY_KEY_RUNNING, { 'retry-after': '1' });
            }
          },
        };
        const byLink = declared !== 'user';
        held.set(request, { request: keyed, claimId, bodyCompared, byLink, commit });
        return;
      }
      case 'another-request':
        throw idempotencyConflict(IDEMPOTENCY_KEY_REUSED);
      case 'running':
        throw idempotencyInProgress(IDEMPOTENCY_KEY_RUNNING, { 'retry-after': '1' });
      case 'committed':
        // Its answer is on its way (recorded in the background) until the take-over time; after it, what
        // failed after the commit (a 5xx) or a process that died with it left no answer to give: never a
        // second run, and no Retry-After that would have a client retry for a day.
        if (claim.lost) throw conflict(IDEMPOTENCY_ANSWER_LOST, 'idempotency_answer_lost');
        throw idempotencyInProgress(IDEMPOTENCY_KEY_RUNNING, { 'retry-after': '1' });
      case 'completed':
        // A reporter who lost a project since may not read again what was answered about it.
        if (lostProject(claim.projects, keyed.projects, request.member !== null)) {
          throw forbidden({ reason: 'project_not_assigned' });
        }
        return replay(reply, claim.answer);
    }
  });

  // The rest of the request (its handler above all) runs with the claim's commit mark: every transaction
  // it opens marks the claim `committed` as its last write (src/db/commit-marks.ts). A callback hook, so
  // that what follows runs inside the mark's context.
  app.addHook('preHandler', (request, _reply, done) => {
    const claim = held.get(request);
    if (!claim) return done();
    withCommitMark(claim.commit, () => done());
  });

  // Before the answer leaves, so that a retry arriving right after it finds it kept. App-level onSend
  // hooks run before route-level ones (compression), so the payload is still the serialized text.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = held.get(request);
    if (!claim) return payload;
    held.delete(request);
    claim.commit.active = false;
    const { committed } = claim.commit;
    const answer = keptAnswer(reply, payload, claim, committed);
    const record = () => keys.complete(db, claim.request, claim.claimId, answer!, times.keepSeconds);
    const release = () => keys.release(db, claim.request, claim.claimId);
    try {
      if (answer) await record();
      // A write that committed is never run again: without an answer to keep (a failure after the
      // commit) its key stays `committed`, and a retry hears 409 until the key expires.
      else if (!committed) await release();
    } catch (err) {
      // The answer still goes out, and is recorded (or the claim released) in the background as soon as
      // the database answers: a retry meanwhile hears 409, and never runs a write that committed.
      request.log.error({ err }, 'idempotency: the answer to a keyed request was not recorded');
      if (answer) retries.add(record, RECORD_RETRY_LIMIT_MS, request.log, 'recorded');
      else if (!committed) retries.add(release, takeOverMs, request.log, 'released');
    }
    return payload;
  });
  app.addHook('onClose', async () => retries.stop());
}

/** True when a reporter's replay would show what a project they no longer have was answered about. */
function lostProject(then: string[] | null, now: string[] | null, member: boolean): boolean {
  if (!member || now === null) return false;
  // Claimed by another role (then demoted to reporter): what it concerned is not known.
  if (then === null) return true;
  const current = new Set(now);
  return then.some((id) => !current.has(id));
}

/**
 * How often a failed release of a claim, or recording of an answer, is tried again: every 5 s and up to a
 * fifth more (so that what an outage left does not all arrive at once), until done or too late.
 */
export const RELEASE_RETRY_MS = 5_000;
const RELEASE_RETRY_LONGEST_MS = RELEASE_RETRY_MS * 1.2;
/** Tries waiting at most: past that, a claim waits for its take-over (or its expiry), as when its process dies. */
const MAX_WAITING_RETRIES = 10_000;
/** An answer whose write committed is tried for an hour: until then a retry of the request hears 409. */
const RECORD_RETRY_LIMIT_MS = 60 * 60 * 1000;

/** Releases and records that failed (the database out of reach), tried again in the background. */
class BackgroundRetries {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  /**
   * Tries `attempt` again until it succeeds or `limitMs` from `since` would pass (a release: after the
   * take-over time another request may hold the key, and a release then would do nothing).
   */
  add(
    attempt: () => Promise<void>,
    limitMs: number,
    log: FastifyBaseLogger,
    done: string,
    since = Date.now(),
  ): void {
    if (this.stopped || Date.now() + RELEASE_RETRY_LONGEST_MS - since >= limitMs) return;
    if (this.timers.size >= MAX_WAITING_RETRIES) return;
    const delay = RELEASE_RETRY_MS + Math.random() * (RELEASE_RETRY_LONGEST_MS - RELEASE_RETRY_MS);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      attempt().then(
        () => log.info(`idempotency: a keyed request’s claim was ${done} after its answer`),
        () => this.add(attempt, limitMs, log, done, since),
      );
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/** The key's caller: the user, or on a public route the link token of its path. */
function scopeOf(request: FastifyRequest, declared: Exclude<Idempotency, 'none'>): string {
  if (declared === 'user') return `user:${sessionOf(request).userId}`;
  const token = (request.params as Record<string, string>)[declared.token]!;
  return `${declared.scope}:${token.toLowerCase()}`;
}

/**
 * What makes two requests the same: method, route, path and query, media type and the validated body
 * (keys sorted). A multipart body is not part of it (`bodyCompared` false): the route reads that stream
 * itself, files straight into storage, after the key is claimed, and a retry carries a new boundary; the
 * same key and route with any multipart body counts as the same submission.
 */
function digestOf(request: FastifyRequest, url: string, mediaType: string, bodyCompared: boolean): string {
  const body = bodyCompared ? (request.body ?? null) : null;
  return createHash('sha256')
    .update(stringify([request.method, url, request.url, mediaType, body]) ?? '')
    .digest('hex');
}

const keptInstead = new WeakMap<FastifyReply, string>();

/**
 * What a replay of this answer gives instead of its body: a route whose answer carries personal data
 * keeps it as a viewer reads it, so that nothing personal waits in the table for a day (an erasure would
 * not reach it, and a replay sent it without an audit entry). The value is kept as JSON.
 */
export function keepAnswerAs(reply: FastifyReply, value: unknown): void {
  keptInstead.set(reply, JSON.stringify(value));
}

/** Refusals a retry may cure without another request: the If-Match preconditions (checked after the claim). */
const NOT_KEPT = new Set([412, 428, 429]);

/**
 * The largest answer kept of a request that committed nothing (a refusal): a 400 can be large, and a row
 * a day for each is for anyone to fill (issue 36, finding 2). An answer to a committed write is always kept.
 */
export const KEPT_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * The answers kept: every completed one below 500 but 429 and the preconditions. A 5xx or a thrown
 * error (the error handler's 500) releases the key, so a retry runs again (unless its write committed);
 * so does a body that is not text (a stream). Of a multipart request, whose body is not compared, only a
 * success is kept: a refused one changed nothing, and its retry (perhaps with the file made smaller) is
 * checked again. Of a request keyed by a link token (a public submission) only the 201; of a request that
 * committed nothing, no answer
 * over KEPT_ANSWER_MAX_BYTES.
 */
function keptAnswer(
  reply: FastifyReply,
  payload: unknown,
  { bodyCompared, byLink }: { bodyCompared: boolean; byLink: boolean },
  committed: boolean,
): KeptAnswer | null {
  const status = reply.statusCode;
  if (status >= 500 || NOT_KEPT.has(status) || (!bodyCompared && status >= 400)) return null;
  // Anyone holding the link can send it: only its success is kept, never a refusal (issue 36, finding 2).
  if (status !== 201 && byLink) return null;
  if (payload !== null && payload !== undefined && typeof payload !== 'string') return null;
  if (!committed && typeof payload === 'string' && payload.length > KEPT_ANSWER_MAX_BYTES / 4) {
    if (Buffer.byteLength(payload) > KEPT_ANSWER_MAX_BYTES) return null;
  }
  const header = (name: string) => {
    const value = reply.getHeader(name);
    return value === undefined ? null : String(value);
  };
  return {
    status,
    contentType: header('content-type'),
    location: header('location'),
    body:
      keptInstead.get(reply) ??
      (payload === undefined || payload === null || payload === '' ? null : payload),
  };
}

function replay(reply: FastifyReply, answer: KeptAnswer): FastifyReply {
  void reply.status(answer.status).header('idempotent-replayed', 'true');
  if (answer.contentType) void reply.header('content-type', answer.contentType);
  if (answer.location) void reply.header('location', answer.location);
  return reply.send(answer.body ?? undefined);
}
