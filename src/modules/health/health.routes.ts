import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';

const Status = Type.Object({ status: Type.String() }, { title: 'HealthStatus' });

export const healthRoutes: FastifyPluginAsyncTypebox<{ isReady: () => Promise<boolean> }> = async (
  app,
  { isReady },
) => {
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
        response: { 200: Status, 503: Status },
      },
    },
    async (_request, reply) =>
      (await isReady()) ? { status: 'ready' } : reply.status(503).send({ status: 'unavailable' }),
  );
};
