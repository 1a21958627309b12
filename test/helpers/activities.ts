import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestUser } from './factories.js';
import { call } from './http.js';

export const activitiesUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/activities`;
export const activityUrl = (orgId: string, id: string) => `/orgs/${orgId}/activities/${id}`;
export const registrationsUrl = (orgId: string, activityId: string) =>
  `/orgs/${orgId}/activities/${activityId}/participants`;
export const registrationUrl = (orgId: string, activityId: string, participantId: string) =>
  `/orgs/${orgId}/activities/${activityId}/participants/${participantId}`;
export const participantsUrl = (orgId: string) => `/orgs/${orgId}/participants`;
export const participantUrl = (orgId: string, id: string) => `/orgs/${orgId}/participants/${id}`;
export const householdUrl = (orgId: string, participantId: string) =>
  `/orgs/${orgId}/participants/${participantId}/household-members`;
export const erasureUrl = (orgId: string, participantId: string) =>
  `/orgs/${orgId}/participants/${participantId}/erase`;
export const exportUrl = (orgId: string, participantId: string) =>
  `/orgs/${orgId}/participants/${participantId}/export`;
export const prefillUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/indicator-reports/prefill`;

export interface ActivityJson extends Record<string, unknown> {
  id: string;
  projectId: string;
  outputId: string | null;
  title: string;
  status: string;
  participantCount: number;
  attendedCount: number;
}

export interface HouseholdMemberJson extends Record<string, unknown> {
  id: string;
  participantId: string;
  name: string | null;
  relationship: string;
  sex: string;
  age: number | null;
  ageBand: string;
  createdAt: string;
}

/** Personal fields are null for viewers and once erased (DECISIONS.md section 5). */
export interface ParticipantJson extends Record<string, unknown> {
  id: string;
  firstName: string | null;
  lastName: string | null;
  sex: string;
  dateOfBirth: string | null;
  age: number | null;
  ageBand: string;
  phone: string | null;
  nationalId: string | null;
  householdMembers: HouseholdMemberJson[];
  erasedAt: string | null;
}

/** A household member as a viewer gets them: no name, no age, the age band kept. */
export const memberWithoutPersonalData = (member: HouseholdMemberJson): HouseholdMemberJson => ({
  ...member,
  name: null,
  age: null,
});

/** A participant as a viewer gets them: every personal field null, ageBand kept, household likewise. */
export const withoutPersonalData = (participant: ParticipantJson): ParticipantJson => ({
  ...participant,
  firstName: null,
  lastName: null,
  dateOfBirth: null,
  age: null,
  phone: null,
  nationalId: null,
  householdMembers: participant.householdMembers.map(memberWithoutPersonalData),
});

export interface RegistrationJson {
  id: string;
  activityId: string;
  participantId: string;
  role: string;
  attended: boolean;
  registeredAt: string;
  participant: ParticipantJson;
}

/** An activity through the API; dates in the first quarter of 2026 unless told otherwise. */
export async function postActivity(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  projectId: string,
  body: Record<string, unknown> = {},
): Promise<ActivityJson> {
  const res = await call(app, 'POST', activitiesUrl(orgId, projectId), {
    as,
    body: { title: 'Hygiene training', startDate: '2026-02-01', endDate: '2026-02-03', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as ActivityJson;
}

let people = 0;

/** A new participant's fields; each call a different person. */
export function person(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  people += 1;
  return {
    firstName: `Grace${people}`,
    lastName: 'Mwangi',
    sex: 'female',
    dateOfBirth: '1990-05-17',
    village: 'Kibera',
    district: 'Nairobi',
    ...overrides,
  };
}

/** Registers a batch through the API and returns the registrations. */
export async function register(
  app: FastifyInstance,
  as: TestUser,
  orgId: string,
  activityId: string,
  participants: Record<string, unknown>[],
): Promise<RegistrationJson[]> {
  const res = await call(app, 'POST', registrationsUrl(orgId, activityId), { as, body: { participants } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as RegistrationJson[];
}
