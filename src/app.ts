import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyContextConfig,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyServerOptions,
} from 'fastify';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase, type Database, type Db } from './db/client.js';
import { withStatementTimeout } from './db/long-statements.js';
import { watchOutages } from './db/outage.js';
import { createReadRouting, type ReadRouting, type ReplicaOptions } from './db/replica.js';
import { registerAccess, type Access } from './http/pipeline/access.js';
import { registerCacheControl } from './http/pipeline/caching.js';
import { registerCompression } from './http/pipeline/compression.js';
import { registerConditionalRequests } from './http/pipeline/conditional.js';
import { registerIdempotency, takeOverSecondsFor } from './http/pipeline/idempotency.js';
import { clientError, frameworkError, registerErrorHandler } from './http/errors/replies.js';
import { registerLocations } from './http/pipeline/location.js';
import { loggerOptions, RequestLog } from './http/observability/logging.js';
import { registerMetrics } from './http/observability/metrics.js';
import { registerOpenApi } from './http/documentation/openapi.js';
import { registerPagination } from './http/schemas/pagination.js';
import { dedupedSerializers } from './http/schemas/serializers.js';
import { registerRateLimits } from './http/pipeline/rate-limit.js';
import { connectRedis } from './http/pipeline/redis-link.js';
import { Sessions } from './http/pipeline/session.js';
import { registerValidation } from './http/schemas/validation.js';
import { activityRoutes, participantRoutes } from './modules/activities/index.js';
import { authRoutes, idpRoutes, PasswordHasher } from './modules/auth/index.js';
import { budgetLineRoutes } from './modules/budget/index.js';
import { donorRoutes } from './modules/donors/index.js';
import { attachmentRoutes, attachmentBytes, storageKeysUnder } from './modules/files/index.js';
import { reportingPeriodRoutes } from './modules/periods/index.js';
import { programRoutes } from './modules/programs/index.js';
import {
  projectRoutes,
  assignedProjectIds,
  projectMemberRoutes,
  programProjects,
} from './modules/projects/index.js';
import { resultNodeRoutes } from './modules/results/index.js';
import {
  indicatorReportRoutes,
  checkRuleEverywhere,
  dropRuleFlags,
  indicatorReportUse,
  reportsInPeriod,
  setPeriodTargets,
} from './modules/indicator-reports/index.js';
import { indicatorRoutes, projectIndicatorRoutes } from './modules/indicators/index.js';
import { indicatorsInBand } from './modules/progress/index.js';
import { feedRoutes } from './modules/feed/index.js';
import {
  personalAmounts,
  takeInUncounted,
  formRoutes,
  publicFormRoutes,
  countedInto,
  submissionFileBytes,
  submissionFileKeys,
  submissionsInPeriod,
} from './modules/forms/index.js';
import { dashboardRoutes, dataQualityRoutes } from './modules/dashboard/index.js';
import { healthRoutes } from './modules/health/index.js';
import { iatiRoutes } from './modules/iati/index.js';
import { importRoutes } from './modules/imports/index.js';
import { validationRuleRoutes } from './modules/quality/index.js';
import { reportRoutes, sharedReportRoutes } from './modules/reports/index.js';
import { FileQuota } from './storage/file-quota.js';
import { createFileStorage } from './storage/configured-storage.js';
import {
  createMailTransport,
  type OutboxWorker,
  type OutboxWorkerOptions,
  outboxDepth,
} from './modules/mail/index.js';
import { hasOpenInvitation, memberRoutes } from './modules/members/index.js';
import { idempotencyKeys } from './modules/idempotency/index.js';
import { accessTokenRoutes, memberships, organizationRoutes } from './modules/orgs/index.js';
import { pageConstraint, pageRoutes } from './modules/pages/index.js';
import { auditLogRoutes } from './modules/privacy/index.js';
import { preparePersonalData } from './upkeep.js';
import { Jobs } from './jobs.js';
import { systemClock, type Clock } from './lib/clock.js';
import { Tally } from './lib/tally.js';
import type { ReminderJob, ReminderJobOptions } from './modules/reminders/index.js';
import {
  type WebhookWorker,
  type WebhookWorkerOptions,
  webhookRoutes,
  webhookDeliveryDepth,
} from './modules/webhooks/index.js';

/** A module's routes that take, besides the shared context, answers from modules above it. */
function withOptions<Extra extends object>(
  routes: FastifyPluginAsync<AppContext & Extra>,
  extra: Extra,
): FastifyPluginAsync<AppContext> {
  return (app, context) => routes(app, { ...context, ...extra });
}

export interface AppOptions {
  /** An open, migrated database; without one the app opens (and migrates) the configured one and closes it. */
  database?: Database;
  /** The in-process outbox worker (and retention jobs); `false` leaves them to `npm run worker`. */
  worker?: OutboxWorkerOptions | false;
  /** The in-process webhook delivery worker; `false` leaves delivery to `npm run worker`. */
  webhooks?: WebhookWorkerOptions | false;
  /** The in-process reminder job; `false` leaves it to `npm run worker`. */
  reminders?: ReminderJobOptions | false;
  /** What the workers take for now (tests move it). */
  clock?: Clock;
  /** The read replica's lag poll and catch-up wait (tests change them); used when DATABASE_REPLICA_URL is set. */
  replica?: ReplicaOptions;
  logger?: FastifyServerOptions['logger'];
}

export interface RouteEntry {
  method: string;
  url: string;
  access: Access | undefined;
  /** Everything the route declares for the hooks (access, rate limit, idempotency, Location, If-Match). */
  config: FastifyContextConfig | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its declarations, for the access, tenancy and declaration suites. */
    routeTable: RouteEntry[];
    outbox: OutboxWorker;
    webhooks: WebhookWorker;
    reminders: ReminderJob;
    /** Where heavy reads run, and the replica's lag and fallbacks. */
    replica: ReadRouting;
  }
}

/** Requests that change data: a caller's successful one makes their next reads wait for the replica. */
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const version = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Limits on slow and idle clients. Node enforces requestTimeout only while headersTimeout is not longer,
 * and looks for expired requests every connectionsCheckingInterval (30 s by default): a quarter of the
 * headers limit keeps a cut-off within a few seconds of its limit. Neither bounds sending an answer.
 */
function clientLimits({ timeouts }: Config): FastifyHttpOptions<Server> {
  const request = timeouts.requestSeconds * 1000;
  const headers = timeouts.headersSeconds * 1000;
  return {
    requestTimeout: request,
    connectionTimeout: timeouts.connectionSeconds * 1000,
    keepAliveTimeout: timeouts.keepAliveSeconds * 1000,
    http: {
      requestTimeout: request,
      headersTimeout: headers,
      connectionsCheckingInterval: Math.min(5000, Math.ceil(headers / 4)),
    },
  };
}

/**
 * The service: the server, its database (migrated, personal data checked against PII_KEY), the shared
 * parts, the plumbing every answer goes through, the request pipeline the routes declare against, then the
 * modules' routes in the module order. The background jobs start when the app is ready.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = createServer(config, options.logger);
  const { database, bulk } = await openData(config, options);
  const parts = await openParts(app, config, options, database, bulk);
  recordRoutes(app, parts);
  const outage = await registerPlumbing(app, config, database, parts);
  const limits = await registerPipeline(app, config, database, parts);
  await registerModules(app, database, parts, {
    config,
    db: database.db,
    sessions: parts.sessions,
    memberships,
    ...limits,
    storage: createFileStorage(config, database),
    // Attachments and form submissions' files (the modules above projects that keep files).
    storedFileKeys: [storageKeysUnder, submissionFileKeys],
    fileQuota: new FileQuota(config.fileQuotas, [attachmentBytes, submissionFileBytes]),
    mailQueued: parts.jobs.mailQueued,
    webhooksQueued: parts.jobs.webhooksQueued,
    clock: parts.clock,
    replica: parts.replica,
    notCounted: parts.notCounted,
  });

  app.addHook('onReady', async () => parts.jobs.start());
  app.addHook('onClose', async () => {
    await parts.jobs.stop();
    outage.stop();
    parts.mail.close();
    parts.redis?.close();
    await parts.replica.close();
    if (!options.database) await database.close();
  });
  // Last: a failure above leaves no replica connection open. Measures the lag once before the first request.
  await parts.replica.start();
  return app;
}

/** Fastify with the service's limits, ids, router options, serializers and framework error answers. */
function createServer(config: Config, logger: AppOptions['logger']) {
  return Fastify({
    logger: logger ?? loggerOptions(config),
    logController: new RequestLog(),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    ...clientLimits(config),
    // Link tokens travel in the path; longer values reach validation and get the contract's 400.
    // Browsers following an emailed link get a page where API clients get JSON (GET /invitations/:token).
    routerOptions: { maxParamLength: 2048, constraints: { page: pageConstraint } },
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { allErrors: true } },
    // Each distinct answer schema compiled once (55 MB of the idle heap were copies of the same few).
    schemaController: { compilersFactory: { buildSerializer: dedupedSerializers() } },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
}

/**
 * The database, opened and migrated unless handed over, with the personal data checked against PII_KEY
 * before anything is written with it (a database handed over unmigrated serves only its 503 readiness:
 * there is nothing to check yet). `bulk`: the handle with the export's statement limit, for the work in
 * bulk (sealing what is in clear, the daily purges).
 */
async function openData(config: Config, options: AppOptions) {
  const database = options.database ?? openDatabase(config);
  if (!options.database) await database.migrate();
  const bulk = withStatementTimeout(database.db, config.databaseTimeouts.exportStatementMs);
  if (await database.isReady()) {
    await preparePersonalData(bulk, config).catch(async (err: unknown) => {
      if (!options.database) await database.close();
      throw err;
    });
  }
  return { database, bulk };
}

type Parts = Awaited<ReturnType<typeof openParts>>;

/**
 * What the pipeline, the modules and the jobs share: Redis, sessions, the password hasher, mail, the clock,
 * the jobs, the replica.
 */
async function openParts(
  app: FastifyInstance,
  config: Config,
  options: AppOptions,
  database: Database,
  bulk: Db,
) {
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, config.redisCommandTimeoutMs, app.log)
    : null;
  const mail = createMailTransport(config, app.log);
  const clock = options.clock ?? systemClock;
  const jobs = new Jobs(
    { db: database.db, bulk, config, send: mail.send, clock, log: app.log },
    {
      outbox: options.worker,
      webhooks: options.webhooks,
      reminders: options.reminders,
      // The daily purges run where the outbox does.
      retention: options.worker === false ? false : {},
    },
  );
  // Opens nothing until replica.start() in buildApp, once closing the app would close it too.
  const replica = createReadRouting(database.db, config, { log: app.log, ...options.replica });
  // One per process: bcrypt's threads are the process's (its load is a metric, its hashes the auth routes').
  const passwords = new PasswordHasher(config);
  return {
    redis,
    sessions: new Sessions(config),
    passwords,
    mail,
    clock,
    jobs,
    replica,
    notCounted: new Tally(),
  };
}

/** The app's decorations, and every route recorded with its declarations as it is added. */
function recordRoutes(app: FastifyInstance, { jobs, replica }: Parts): void {
  app.decorate('routeTable', [] as RouteEntry[]);
  app.decorate('outbox', jobs.outbox);
  app.decorate('webhooks', jobs.webhooks);
  app.decorate('reminders', jobs.reminders);
  app.decorate('replica', replica);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Read lazily: a plugin's own onRoute hook (the documentation's) may declare access after this one runs.
      if (method !== 'HEAD') {
        app.routeTable.push({
          method,
          url: route.url,
          get access() {
            return route.config?.access;
          },
          get config() {
            return route.config;
          },
        });
      }
    }
  });
}

/**
 * What every answer goes through, routes or not: the request id, validation, the error handler (and the
 * outage tracker it feeds, returned), pagination links, metrics, compression, security headers, CORS,
 * cookies.
 */
async function registerPlumbing(app: FastifyInstance, config: Config, database: Database, parts: Parts) {
  const { redis, replica } = parts;
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  registerValidation(app);
  const outage = watchOutages(database, app.log);
  registerErrorHandler(app, outage);
  registerPagination(app, config.baseUrl);
  // Without a replica its metrics have no values (not `usable 0`).
  const replicaState = () => {
    const state = replica.state();
    return state.configured ? state : null;
  };
  // Before any route (plugins add some too), so that its onResponse hook counts every one.
  registerMetrics(app, {
    token: config.metricsToken,
    sources: {
      pools: { primary: () => database.poolStats(), replica: () => replicaState()?.pool ?? null },
      replica: replicaState,
      outbox: () => outboxDepth(database.db),
      webhookDeliveries: () => webhookDeliveryDepth(database.db),
      hashing: () => parts.passwords.load(),
      notCounted: () => parts.notCounted.totals(),
      ...(redis ? { redis: () => redis.check() } : {}),
      dataDir: config.dataDir,
    },
  });
  await registerCompression(app);
  await app.register(helmet, {
    contentSecurityPolicy: false,
    hsts: config.baseUrl.startsWith('https:'),
    // The client application on APP_URL loads logos and attachments from here.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  // @fastify/cors answers preflights in its own onRequest hook; its catch-all OPTIONS route is public.
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*') route.config = { ...route.config, access: 'public' };
  });
  await app.register(cors, {
    origin: config.corsOrigins,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'Link',
      'ETag',
      'Location',
      'Idempotent-Replayed',
      'Content-Disposition',
      'Import-Applied',
      'Allow',
      'WWW-Authenticate',
    ],
  });
  await app.register(cookie);
  return outage;
}

/**
 * The hooks that read what each route declares in its config, in their order: rate limits, access,
 * idempotency keys, If-Match, Location, Cache-Control; then the documentation of them all. Returns the
 * limits routes add themselves (sign-in, uploads).
 */
async function registerPipeline(
  app: FastifyInstance,
  config: Config,
  database: Database,
  { redis, sessions }: Parts,
) {
  const { authLimit, uploadLimit } = await registerRateLimits(app, config, redis);
  registerAccess(app, database.db, sessions, memberships);
  // After access (the key's caller) and, as a preHandler, after body validation (its fingerprint).
  registerIdempotency(app, database.db, idempotencyKeys(config.piiKeyring), {
    takeOverSeconds: takeOverSecondsFor(config.timeouts.requestSeconds),
    reporterProjects: assignedProjectIds,
  });
  // After idempotency: a replayed answer is sent again as it was, whatever the resource's ETag is now.
  registerConditionalRequests(app, redis);
  registerLocations(app, config.baseUrl);
  registerCacheControl(app);
  await registerOpenApi(app, version, config.baseUrl);
  return { authLimit, uploadLimit };
}

/** Health, then every module's routes in the module order, each handed the shared context. */
async function registerModules(
  app: FastifyInstance,
  database: Database,
  { redis, replica, passwords }: Parts,
  context: AppContext,
): Promise<void> {
  // Read-your-writes: after a caller's change succeeds, their routed reads stay on the primary a while.
  app.addHook('onSend', async (request, reply) => {
    if (request.session && reply.statusCode < 400 && CHANGES.has(request.method)) {
      replica.wrote(request.session.userId);
    }
  });
  await app.register(healthRoutes, {
    isReady: () => database.isReady(),
    redisUp: redis ? () => redis.check() : null,
  });
  for (const routes of [
    // Members sit above auth: they answer whether an address is invited (REGISTRATION=invite).
    withOptions(authRoutes, { passwords, invited: hasOpenInvitation }),
    withOptions(idpRoutes, { invited: hasOpenInvitation }),
    organizationRoutes,
    accessTokenRoutes,
    memberRoutes,
    donorRoutes,
    // Programs sit below projects in the module order: the projects module answers for their projects.
    withOptions(programRoutes, { projects: programProjects }),
    projectRoutes,
    projectMemberRoutes,
    resultNodeRoutes,
    // Periods sit below the modules that hold submissions in them, which answer for them.
    withOptions(reportingPeriodRoutes, { submissionsIn: [reportsInPeriod, submissionsInPeriod] }),
    // Indicators sit below their reports and progress, which answer for them.
    withOptions(indicatorRoutes, {
      dependents: { ...indicatorReportUse, inBand: indicatorsInBand },
    }),
    // Rules flag indicator reports: the indicator-reports module takes a rule's flags off them.
    withOptions(validationRuleRoutes, {
      reports: { removed: dropRuleFlags, written: checkRuleEverywhere },
    }),
    // A period's target is its indicator report's: the indicator-reports module sets it.
    withOptions(projectIndicatorRoutes, { periodTargets: setPeriodTargets }),
    // Forms keep which submissions were counted into a report: they answer for its recount and history.
    withOptions(indicatorReportRoutes, {
      countedSources: countedInto,
      personalAmounts,
      uncountedSources: takeInUncounted,
    }),
    activityRoutes,
    participantRoutes,
    budgetLineRoutes,
    attachmentRoutes,
    formRoutes,
    publicFormRoutes,
    // A project's set-up workbook writes through the services below it.
    withOptions(importRoutes, {
      setup: {
        dependents: { ...indicatorReportUse, inBand: indicatorsInBand },
        periodTargets: setPeriodTargets,
      },
    }),
    reportRoutes,
    sharedReportRoutes,
    dashboardRoutes,
    dataQualityRoutes,
    iatiRoutes,
    feedRoutes,
    auditLogRoutes,
    webhookRoutes,
    pageRoutes,
  ]) {
    await app.register(routes, context);
  }
}
