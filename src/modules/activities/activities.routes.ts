import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, CONTRIBUTORS, memberOf } from '../../http/pipeline/access.js';
import { badRequest } from '../../errors/catalogue.js';
import { errorResponse } from '../../http/errors/replies.js';
import { violations } from '../../http/errors/violations.js';
import { keepAnswerAs } from '../../http/pipeline/idempotency.js';
import { Collection, itemsOf, type Page } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import { Activity, ActivityQuery, CreateActivityBody, UpdateActivityBody } from './activities.schemas.js';
import { ActivityService } from './activities.service.js';
import { auditSourceOf } from '../privacy/index.js';
import { recordParticipantsRead, withoutPersonalData, type ParticipantView } from './participant-view.js';
import {
  ActivityParticipant,
  MAX_BATCH,
  RegisterParticipantsBody,
  RegistrationQuery,
  UpdateRegistrationBody,
} from './participants.schemas.js';
import { NATIONAL_ID_ELSEWHERE, registrationProblems, RegistrationService } from './registrations.service.js';
import { participantImportRoutes } from './participant-import.routes.js';

const tags = ['Activities'];
const READ =
  'Reporters may read only activities of projects assigned to them. Viewers get no personal field ' +
  '(names, date of birth, age, phone, national id, household names and ages: null; ageBand instead). ' +
  'A response with personal data in clear is recorded in the audit log.';
const WRITE = 'Reporters may change only activities of projects assigned to them.';

export const activityRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  // With its own multipart parser, in a plugin of its own.
  await app.register(participantImportRoutes, ctx);
  const activities = new ActivityService(ctx.db);
  const registrations = new RegistrationService(ctx.db, ctx.config.piiKeyring, ctx.webhooksQueued);
  /** Registrations as sent, after their audit entry (src/modules/privacy/audit-log.ts). */
  const audited = async <
    T extends { participant: ParticipantView }[] | Page<{ participant: ParticipantView }>,
  >(
    request: FastifyRequest,
    sent: T,
    details?: Record<string, unknown>,
  ): Promise<T> => {
    const views = itemsOf(sent).map((registration) => registration.participant);
    await recordParticipantsRead(ctx.db, auditSourceOf(request, memberOf(request)), views, details);
    return sent;
  };

  app.get(
    '/orgs/:orgId/projects/:projectId/activities',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listActivities',
        tags,
        summary: 'Activities of a project',
        description:
          'Newest first: latest startDate, then latest created. `from` and `to` keep the activities that ' +
          'overlap that range. Reporters may read only projects assigned to them.',
        params: Params('orgId', 'projectId'),
        querystring: ActivityQuery,
        response: { 200: Collection(Activity) },
      },
    },
    (request) => activities.list(memberOf(request), request.params.projectId, request.query),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/activities',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        location: '/orgs/:orgId/activities/:newId',
      },
      schema: {
        operationId: 'createActivity',
        tags,
        summary: 'Plan an activity',
        description:
          "`outputId`, when given, must be an output node of the project's program (another level or " +
          'program: 400; unknown: 404). Status defaults to planned. Text of only spaces is stored as null. ' +
          WRITE,
        params: Params('orgId', 'projectId'),
        body: CreateActivityBody,
        response: { 201: Activity },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await activities.create(memberOf(request), request.params.projectId, request.body)),
  );

  app.get(
    '/orgs/:orgId/activities/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getActivity',
        tags,
        summary: 'An activity',
        description: 'With its participant and confirmed-attendance counts. ' + READ,
        params: Params('orgId', 'id'),
        response: { 200: Activity },
      },
    },
    (request) => activities.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/activities/:id',
    {
      config: { access: { roles: CONTRIBUTORS }, conditional: '/orgs/:orgId/activities/:id' },
      schema: {
        operationId: 'updateActivity',
        tags,
        summary: 'Change an activity',
        description:
          'Any subset of the fields; null clears the optional ones. Status moves planned > in_progress, ' +
          'completed or cancelled; in_progress > completed or cancelled; cancelled > planned (others: 409). ' +
          WRITE,
        params: Params('orgId', 'id'),
        body: UpdateActivityBody,
        response: { 200: Activity, 409: errorResponse('Status transition not allowed') },
      },
    },
    (request) => activities.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/activities/:id',
    {
      config: { access: { roles: CONTRIBUTORS }, conditional: '/orgs/:orgId/activities/:id' },
      schema: {
        operationId: 'deleteActivity',
        tags,
        summary: 'Delete an activity',
        description: 'Its registrations go with it; the participants stay in the organization. ' + WRITE,
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await activities.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgId/activities/:id/participants',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listActivityParticipants',
        tags,
        summary: 'Participants of an activity',
        description:
          'Registrations with the nested participant, by last name, first name, then participant id ' +
          '(for viewers by participant id alone). ' +
          READ,
        params: Params('orgId', 'id'),
        querystring: RegistrationQuery,
        response: { 200: Collection(ActivityParticipant) },
      },
    },
    async (request) =>
      audited(request, await registrations.list(memberOf(request), request.params.id, request.query), {
        // Named, not spread: unknown query parameters are kept out of the audit log (a NUL cannot be stored).
        activityId: request.params.id,
        attended: request.query.attended,
        page: request.query.page,
        limit: request.query.limit,
      }),
  );

  app.post(
    '/orgs/:orgId/activities/:id/participants',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        location: '/orgs/:orgId/activities/:id/participants',
      },
      schema: {
        operationId: 'registerActivityParticipants',
        tags,
        summary: 'Register participants in an activity',
        description:
          `1 to ${MAX_BATCH} items, all or nothing (a 400 lists every bad item by index, e.g. ` +
          '`participants.3.sex must be one of female, male, other`). Each item is `{ participantId }` of an ' +
          "existing participant (unknown: 404) or a new participant's fields (firstName, lastName, sex, " +
          'village and district required; dateOfBirth, phone and nationalId optional), plus `role` ' +
          '(default attendee) and `attended` (default false). A new participant whose nationalId the ' +
          'organization knows is that participant (their stored fields are kept). Registering someone ' +
          'already registered changes nothing; within one batch the first item for a person counts. ' +
          '201: the registrations of the batch, in its order. One `participant.registered` feed entry per ' +
          'batch that registers anyone, with the count. ' +
          WRITE +
          ' A reporter reaches only people registered in an activity of a project assigned to them: ' +
          'another `participantId` is 404 (`Participant not found`), and a new participant whose nationalId ' +
          `is of someone outside those projects is 409 (\`${NATIONAL_ID_ELSEWHERE}\`), naming nobody.`,
        params: Params('orgId', 'id'),
        body: RegisterParticipantsBody,
        response: {
          201: Type.Array(ActivityParticipant),
          409: errorResponse("nationalId of a participant out of a reporter's reach"),
        },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      // The schema's messages and the batch's own rules together: every bad item in one answer.
      const problems = [
        ...(request.validationError ? violations(request.validationError) : []),
        ...registrationProblems((request.body as { participants?: unknown } | undefined)?.participants),
      ];
      if (problems.length > 0) throw badRequest(...new Set(problems));
      const body = await registrations.register(
        memberOf(request),
        request.params.id,
        request.body.participants,
      );
      // A replay of this answer (Idempotency-Key) gives it as a viewer reads it: no personal data is kept.
      keepAnswerAs(
        reply,
        body.map((registration) => ({
          ...registration,
          participant: withoutPersonalData(registration.participant),
        })),
      );
      return reply.status(201).send(await audited(request, body));
    },
  );

  app.patch(
    '/orgs/:orgId/activities/:activityId/participants/:participantId',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        conditional: { none: "a registration has no GET of its own (read in the activity's participants)" },
      },
      schema: {
        operationId: 'updateActivityParticipant',
        tags,
        summary: "Change a participant's role or attendance in an activity",
        description: 'An empty body returns the registration unchanged. 404 when not registered. ' + WRITE,
        params: Params('orgId', 'activityId', 'participantId'),
        body: UpdateRegistrationBody,
        response: { 200: ActivityParticipant },
      },
    },
    async (request) =>
      (
        await audited(request, [
          await registrations.update(
            memberOf(request),
            request.params.activityId,
            request.params.participantId,
            request.body,
          ),
        ])
      )[0]!,
  );

  app.delete(
    '/orgs/:orgId/activities/:activityId/participants/:participantId',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        conditional: { none: "a registration has no GET of its own (read in the activity's participants)" },
      },
      schema: {
        operationId: 'removeActivityParticipant',
        tags,
        summary: 'Remove a participant from an activity',
        description: 'The participant stays in the organization. 404 when not registered. ' + WRITE,
        params: Params('orgId', 'activityId', 'participantId'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await registrations.remove(memberOf(request), request.params.activityId, request.params.participantId);
      return reply.status(204).send(null);
    },
  );
};
