import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'safe-stable-stringify';
import type { Db } from '../db/client.js';
import { sessionOf, type Access } from './access.js';
import { badRequest, idempotencyConflict, idempotencyInProgress } from './errors.js';

/** The public form submission: a field app retrying it after a timeout must not count it twice. */
const PUBLIC_SUBMISSION = '/forms/public/:token/submit';

/**
 * The POSTs that take an `Idempotency-Key`: every POST that creates or acts for a signed-in caller,
 * and the public form submission (its caller is the form token). The other public POSTs (sign-in,
 * registration, password reset) have no caller to keep answers for, and ignore the header.
 */
export function takesIdempotencyKey(method: string, url: string, access: Access | undefined): boolean {
  if (method !== 'POST' || SESSION_ACTIONS.has(url)) return false;
  if (url === PUBLIC_SUBMISSION) return true;
  return access !== undefined && access !== 'public';
}

/**
 * Actions on the presented session rather than the user's data: idempotent by nature, and a key kept
 * per user would let signing out one session replay as the sign-out of another, which stays valid.
 */
const SESSION_ACTIONS = new Set(['/auth/logout']);

export const IDEMPOTENCY_KEY_MALFORMED = 'Idempotency-Key must be 1 to 255 visible characters';
export const IDEMPOTENCY_KEY_REUSED = 'Idempotency-Key was used with another request';
export const IDEMPOTENCY_KEY_RUNNING = 'A request with this Idempotency-Key is still running';

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
  | { kind: 'completed'; answer: KeptAnswer };

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
 * `Idempotency-Key` on the POSTs that take one (above): after access and body validation, the first
 * request with a key runs and its answer is kept; a retry with the same request gets that answer again
 * with `Idempotent-Replayed: true` and runs nothing; another request with the key is 422, and a retry
 * while the first still runs is 409. Without the header nothing changes. A claim left running by a
 * process that died is taken over after `takeOverSeconds` (`takeOverSecondsFor`).
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Db,
  keys: IdempotencyKeys,
  options: { takeOverSeconds: number },
): void {
  const held = new WeakMap<
    FastifyRequest,
    { request: KeyedRequest; claimId: string; bodyCompared: boolean }
  >();
  const times = { keepSeconds: IDEMPOTENCY_KEEP_SECONDS, takeOverSeconds: options.takeOverSeconds };
  const retries = new ReleaseRetries(db, keys, options.takeOverSeconds * 1000);

  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions;
    if (!route.url || !takesIdempotencyKey(request.method, route.url, route.config.access)) return;
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
      scope: scopeOf(request, route.url),
      key,
      digest: digestOf(request, route.url, mediaType, bodyCompared),
    };
    const claim = await keys.claim(db, keyed, times);
    switch (claim.kind) {
      case 'claimed':
        held.set(request, { request: keyed, claimId: claim.claimId, bodyCompared });
        return;
      case 'another-request':
        throw idempotencyConflict(IDEMPOTENCY_KEY_REUSED);
      case 'running':
        throw idempotencyInProgress(IDEMPOTENCY_KEY_RUNNING, { 'retry-after': '1' });
      case 'completed':
        return replay(reply, claim.answer);
    }
  });

  // Before the answer leaves, so that a retry arriving right after it finds it kept. App-level onSend
  // hooks run before route-level ones (compression), so the payload is still the serialized text.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = held.get(request);
    if (!claim) return payload;
    held.delete(request);
    const answer = keptAnswer(reply, payload, claim.bodyCompared, claim.request.scope);
    try {
      if (answer) await keys.complete(db, claim.request, claim.claimId, answer, times.keepSeconds);
      else await keys.release(db, claim.request, claim.claimId);
    } catch (err) {
      // The answer still goes out. A kept answer that was not recorded leaves the claim running until it
      // may be taken over (running the request again could do twice what was done); a release is tried
      // again in the background, so that a retry after an outage runs as soon as the database is back.
      request.log.error({ err }, 'idempotency: the answer to a keyed request was not recorded');
      if (!answer) retries.release(claim.request, claim.claimId, request.log);
    }
    return payload;
  });
  app.addHook('onClose', async () => retries.stop());
}

/**
 * How often a failed release of a claim is tried again: every 5 s and up to a fifth more (so that the
 * releases an outage left do not all arrive at once), until the claim could be taken over.
 */
export const RELEASE_RETRY_MS = 5_000;
const RELEASE_RETRY_LONGEST_MS = RELEASE_RETRY_MS * 1.2;
/** Releases waiting at most: past that, a claim waits for its take-over, as when its process dies. */
const MAX_WAITING_RELEASES = 10_000;

/** Releases of claims that failed (the database out of reach), tried again until done or too late. */
class ReleaseRetries {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly keys: IdempotencyKeys,
    private readonly takeOverMs: number,
  ) {}

  release(request: KeyedRequest, claimId: string, log: FastifyBaseLogger, since = Date.now()): void {
    // After the take-over time another request may hold the key: a release then would do nothing.
    if (this.stopped || Date.now() + RELEASE_RETRY_LONGEST_MS - since >= this.takeOverMs) return;
    if (this.timers.size >= MAX_WAITING_RELEASES) return;
    const delay = RELEASE_RETRY_MS + Math.random() * (RELEASE_RETRY_LONGEST_MS - RELEASE_RETRY_MS);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.keys.release(this.db, request, claimId).then(
        () => log.info('idempotency: a keyed request’s claim was released after its answer'),
        () => this.release(request, claimId, log, since),
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

/** The key's caller: the user, or for a public submission the form's token (one per form). */
function scopeOf(request: FastifyRequest, url: string): string {
  if (url === PUBLIC_SUBMISSION) return `form:${(request.params as { token: string }).token.toLowerCase()}`;
  return `user:${sessionOf(request).userId}`;
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
 * The answers kept: every completed one below 500 but 429 and the preconditions. A 5xx or a thrown
 * error (the error handler's 500) releases the key, so a retry runs again; so does a body that is not
 * text (a stream). Of a multipart request, whose body is not compared, only a success is kept: a
 * refused one changed nothing, and its retry (perhaps with the file made smaller) is checked again.
 */
function keptAnswer(
  reply: FastifyReply,
  payload: unknown,
  bodyCompared: boolean,
  scope: string,
): KeptAnswer | null {
  const status = reply.statusCode;
  if (status >= 500 || NOT_KEPT.has(status) || (!bodyCompared && status >= 400)) return null;
  // Anyone can send a public submission to a made-up token: its 404 is not worth a row for a day.
  if (status === 404 && scope.startsWith('form:')) return null;
  if (payload !== null && payload !== undefined && typeof payload !== 'string') return null;
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
