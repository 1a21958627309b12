import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call, type Caller } from './http.js';

export const uniqueDonorCode = () => `D-${randomUUID().slice(0, 8).toUpperCase()}`;

export const donorsUrl = (orgId: string) => `/orgs/${orgId}/donors`;
export const donorUrl = (orgId: string, id: string) => `/orgs/${orgId}/donors/${id}`;

/** A donor created through the API by `as` (an org_admin of `orgId`); `fields` override the defaults. */
export async function createDonor(
  app: FastifyInstance,
  as: Caller,
  orgId: string,
  fields: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = await call(app, 'POST', donorsUrl(orgId), {
    as,
    body: { name: 'USAID', code: uniqueDonorCode(), type: 'bilateral', ...fields },
  });
  expect(res.status).toBe(201);
  return res.body;
}
