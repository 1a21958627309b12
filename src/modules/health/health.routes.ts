import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';

const Status = Type.Object({ status: Type.String() }, { title: 'HealthStatus' });
const Readiness = Type.Object(
  {
    status: Type.String(),
    redis: Type.Optional(
      Type.String({
        enum: ['ok', 'degraded'],
        description:
          'With REDIS_URL only: `degraded` while Redis does not answer, rate limits are not counted and ' +
          'write locks hold per instance (the service still serves: readiness stays 200).',
      }),
    ),
  },
  { title: 'Readiness' },
);

export interface HealthOptions {
  isReady: () => Promise<boolean>;
  /** Whether Redis answers now; null without REDIS_URL. */
  redisUp: (() => Promise<boolean>) | null;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { isReady, redisUp }) => {
  const config = { access: 'public', rateLimitBucket: 'none' } as const;

  app.get(
    '/health',
    {
      config,
      schema: {
        operationId: 'getLiveness',
        tags: ['Health'],
        summary: 'Liveness: the process answers',
        response: { 200: Status },
      },
    },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/health/ready',
    {
      config,
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'Readiness: database reachable and every migration applied',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_request, reply) => {
      const [ready, redisAnswers] = await Promise.all([isReady(), redisUp?.()]);
      const redis = redisAnswers === undefined ? {} : { redis: redisAnswers ? 'ok' : 'degraded' };
      return ready
        ? { status: 'ready', ...redis }
        : reply.status(503).send({ status: 'unavailable', ...redis });
    },
  );
};
