import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { uniqueCode, type TestUser } from './factories.js';
import { call } from './http.js';

export const programsUrl = (orgId: string) => `/orgs/${orgId}/programs`;

/** A program through the API, as an org_admin would create it. */
export async function postProgram(
  app: FastifyInstance,
  admin: TestUser,
  orgId: string,
  body: Record<string, unknown> = {},
) {
  const res = await call(app, 'POST', programsUrl(orgId), {
    as: admin,
    body: { name: 'Clean Water', startDate: '2026-01-01', endDate: '2028-12-31', ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; status: string; createdAt: string };
}

/** A project through the API. */
export async function postProject(
  app: FastifyInstance,
  admin: TestUser,
  orgId: string,
  programId: string,
  body: Record<string, unknown> = {},
) {
  const res = await call(app, 'POST', `/orgs/${orgId}/programs/${programId}/projects`, {
    as: admin,
    body: {
      name: 'Wells',
      code: uniqueCode('p'),
      startDate: '2026-01-01',
      endDate: '2027-12-31',
      currency: 'USD',
      ...body,
    },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; code: string; status: string };
}
