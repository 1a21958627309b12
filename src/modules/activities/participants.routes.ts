import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { auditSourceOf, recordPersonalRead } from '../privacy/index.js';
import { recordParticipantsRead, type ParticipantView } from './participant-view.js';
import { ADMINS, ALL_ROLES, CONTRIBUTORS, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { isPreconditionRead } from '../../http/pipeline/conditional.js';
import { errorResponse } from '../../http/errors/replies.js';
import { keepAnswerAs } from '../../http/pipeline/idempotency.js';
import { Collection, itemsOf, type Page } from '../../http/schemas/pagination.js';
import { Params } from '../../http/schemas/schemas.js';
import { HOUSEHOLD_PERSONAL_FIELDS, withoutFields } from '../../lib/personal-data.js';
import {
  CreateHouseholdMemberBody,
  ErasureBody,
  HouseholdMember,
  Participant,
  ParticipantExport,
  ParticipantQuery,
  UpdateParticipantBody,
} from './participants.schemas.js';
import { ParticipantService } from './participants.service.js';

const tags = ['Participants'];
const PERSONAL =
  'Viewers get no personal field (names, date of birth, age, phone, national id, household names and ' +
  'ages: null; ageBand instead); a response with personal data in clear is recorded in the audit log.';
const SCOPE =
  'Reporters reach only people registered in an activity of a project assigned to them (others: 403).';

/**
 * A list's filter as the audit log keeps it: a search is often a person's name, perhaps of someone who
 * is no participant, so the log keeps how many words it had, not the words.
 */
function listFilter({ search, page, limit }: { search?: string; page?: number; limit?: number }) {
  const words = (search ?? '').trim().split(/\s+/).filter(Boolean).length;
  // Named, not spread: a query string's unknown parameters are not the contract's (and a NUL in one
  // cannot be stored in jsonb: it made the list answer 500).
  return { page, limit, ...(words > 0 ? { searchWords: words } : {}) };
}

export const participantRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const participants = new ParticipantService(ctx.db, ctx.config.piiKeyring);
  /**
   * Participants as sent, after their audit entry (src/modules/privacy/audit-log.ts). The read an
   * If-Match makes to compare ETags sends nothing to anyone: it is not recorded.
   */
  const audited = async <T extends ParticipantView[] | Page<ParticipantView>>(
    request: FastifyRequest,
    sent: T,
    details?: Record<string, unknown>,
  ): Promise<T> => {
    if (isPreconditionRead(request)) return sent;
    await recordParticipantsRead(ctx.db, auditSourceOf(request, memberOf(request)), itemsOf(sent), details);
    return sent;
  };
  const one = async (request: FastifyRequest, view: ParticipantView) => (await audited(request, [view]))[0]!;

  app.get(
    '/orgs/:orgId/participants',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listParticipants',
        tags,
        summary: 'Participants of the organization',
        description:
          '`search`: every word must appear, in any case, in the first name, last name, village or ' +
          'district. By last name, first name, then id. For viewers names are neither searched nor ' +
          'sorted on (search in village and district; by id), so that a viewer cannot tell whether a ' +
          'named person is a participant. Reporters see only people registered in their projects. ' +
          PERSONAL,
        params: Params('orgId'),
        querystring: ParticipantQuery,
        response: { 200: Collection(Participant) },
      },
    },
    async (request) =>
      audited(request, await participants.list(memberOf(request), request.query), listFilter(request.query)),
  );

  app.get(
    '/orgs/:orgId/participants/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getParticipant',
        tags,
        summary: 'A participant',
        description:
          'With `age` (completed years today, UTC; null without dateOfBirth) and `householdMembers`. ' +
          PERSONAL +
          ' ' +
          SCOPE,
        params: Params('orgId', 'id'),
        response: { 200: Participant },
      },
    },
    async (request) => one(request, await participants.get(memberOf(request), request.params.id)),
  );

  app.patch(
    '/orgs/:orgId/participants/:id',
    {
      config: { access: { roles: CONTRIBUTORS }, conditional: '/orgs/:orgId/participants/:id' },
      schema: {
        operationId: 'updateParticipant',
        tags,
        summary: 'Change a participant',
        description:
          'Any subset of the fields; null clears dateOfBirth, phone or nationalId. A nationalId another ' +
          'participant of the organization has: 409. ' +
          SCOPE,
        params: Params('orgId', 'id'),
        body: UpdateParticipantBody,
        response: { 200: Participant, 409: errorResponse('nationalId taken') },
      },
    },
    async (request) =>
      one(request, await participants.update(memberOf(request), request.params.id, request.body)),
  );

  app.get(
    '/orgs/:orgId/participants/:id/household-members',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listHouseholdMembers',
        tags,
        summary: "A participant's household members",
        description: 'Oldest first, then by id (for viewers by id alone). ' + SCOPE,
        params: Params('orgId', 'id'),
        response: { 200: Type.Array(HouseholdMember) },
      },
    },
    async (request) => {
      const member = memberOf(request);
      const household = await participants.household(member, request.params.id);
      if (household.some((person) => person.name !== null)) {
        await recordPersonalRead(ctx.db, auditSourceOf(request, member), {
          subjectKind: 'household_member',
          subjectIds: [request.params.id, ...household.map((person) => person.id)],
          count: household.length,
        });
      }
      return household;
    },
  );

  app.post(
    '/orgs/:orgId/participants/:id/household-members',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        location: '/orgs/:orgId/participants/:id/household-members',
      },
      schema: {
        operationId: 'addHouseholdMember',
        tags,
        summary: "Add a member to a participant's household",
        description: 'Age in completed years, 0 to 130. ' + SCOPE,
        params: Params('orgId', 'id'),
        body: CreateHouseholdMemberBody,
        response: { 201: HouseholdMember },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      const person = await participants.addHouseholdMember(member, request.params.id, request.body);
      await recordPersonalRead(ctx.db, auditSourceOf(request, member), {
        subjectKind: 'household_member',
        subjectIds: [request.params.id, person.id],
        count: 1,
      });
      // A replay of this answer (Idempotency-Key) gives it as a viewer reads it: no personal data is kept.
      keepAnswerAs(reply, withoutFields(person, [...HOUSEHOLD_PERSONAL_FIELDS]));
      return reply.status(201).send(person);
    },
  );

  app.post(
    '/orgs/:orgId/participants/:id/erase',
    {
      config: {
        access: { roles: ADMINS },
        idempotency: 'user',
        conditional: '/orgs/:orgId/participants/:id',
      },
      schema: {
        operationId: 'eraseParticipant',
        tags,
        summary: "Erase a participant's personal data",
        description:
          'GDPR article 17. Removes, irreversibly (the values are gone, not flagged), the first and last ' +
          'name, date of birth, phone and national id, and the name and age of every household member. ' +
          'Kept: sex, village, district, the age band each person has today (`ageBand`, for everyone from ' +
          'then on), the registrations, and so every count, disaggregation, indicator value and stored ' +
          'report. `reason` is kept in the audit log with the erasure. 200: the erased participant ' +
          '(`erasedAt` set); erasing again: 409. Feed entries never carried participant names. ' +
          'A participant erased cannot be given personal data again (PATCH of those fields: 409).',
        params: Params('orgId', 'id'),
        body: ErasureBody,
        response: { 200: Participant, 409: errorResponse('already erased') },
      },
    },
    (request) =>
      participants.erase(
        memberOf(request),
        auditSourceOf(request, memberOf(request)),
        request.params.id,
        request.body.reason,
      ),
  );

  app.get(
    '/orgs/:orgId/participants/:id/export',
    {
      config: { access: { roles: MANAGERS } },
      schema: {
        operationId: 'exportParticipant',
        tags,
        summary: 'Everything held about a participant',
        description:
          'GDPR article 15, the right of access: one JSON document with the record in clear, the ' +
          'household, every registration with its activity, and the audit log entries about the person ' +
          '(this export, recorded first, included). An erased participant exports what is left.',
        params: Params('orgId', 'id'),
        response: { 200: ParticipantExport },
      },
    },
    (request) =>
      participants.export(memberOf(request), auditSourceOf(request, memberOf(request)), request.params.id),
  );
};
