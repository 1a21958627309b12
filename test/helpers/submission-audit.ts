import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import type { Team } from './factories.js';
import { auditEntriesOf, eraseUrl } from './forms.js';
import { call } from './http.js';

/** Erases a submission's personal answers as the team's admin: the respondent withdrew their consent. */
export const withdrawConsent = (app: FastifyInstance, team: Team, formId: string, submissionId: string) =>
  call(app, 'POST', eraseUrl(team.org.id, formId, submissionId), {
    as: team.admin,
    body: { reason: 'Consent withdrawn' },
  });

/** What the team's officer leaves in the audit log, reading a form's submissions through the test app. */
export const officerEntry = (
  team: Team,
  entry: {
    action: 'read' | 'export';
    route: string;
    subjectIds?: unknown[];
    count: number;
    details: Record<string, unknown>;
  },
) => ({
  id: expect.any(Number),
  orgId: team.org.id,
  at: expect.any(Date),
  actorId: team.officer.id,
  actorRole: 'me_officer',
  tokenId: null,
  tokenName: null,
  ip: '127.0.0.1',
  requestId: expect.any(String),
  subjectKind: 'form_submission',
  subjectIds: [],
  ...entry,
});

/** Expects the form's audit entries to be an erasure, then one export by the team's officer: this one. */
export async function expectExportAfterErasure(
  db: Db,
  team: Team,
  formId: string,
  exported: { route: string; count: number; details: Record<string, unknown> },
) {
  const entries = await auditEntriesOf(db, formId);
  expect(entries.map((entry) => entry.action)).toEqual(['erase', 'export']);
  expect(entries[1]).toEqual(officerEntry(team, { action: 'export', ...exported }));
}
