import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, CONTRIBUTORS, memberOf } from '../../http/access.js';
import { errorResponse } from '../../http/errors.js';
import { Collection } from '../../http/pagination.js';
import { Params } from '../../http/schemas.js';
import {
  CreateHouseholdMemberBody,
  HouseholdMember,
  Participant,
  ParticipantQuery,
  UpdateParticipantBody,
} from './participants.schemas.js';
import { ParticipantService } from './participants.service.js';

const tags = ['Participants'];
const SCOPE =
  'Reporters reach only people registered in an activity of a project assigned to them (others: 403).';

export const participantRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const participants = new ParticipantService(ctx.db);

  app.get(
    '/orgs/:orgId/participants',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        summary: 'Participants of the organization',
        description:
          '`search`: every word must appear, in any case, in the first name, last name, village or ' +
          'district. By last name, first name, then id. Reporters see only people registered in their ' +
          'projects; viewers get phone and nationalId as null.',
        params: Params('orgId'),
        querystring: ParticipantQuery,
        response: { 200: Collection(Participant) },
      },
    },
    (request) => participants.list(memberOf(request), request.query),
  );

  app.get(
    '/orgs/:orgId/participants/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        summary: 'A participant',
        description:
          'With `age` (completed years today, UTC; null without dateOfBirth) and `householdMembers`. ' +
          'Viewers get phone and nationalId as null. ' +
          SCOPE,
        params: Params('orgId', 'id'),
        response: { 200: Participant },
      },
    },
    (request) => participants.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/participants/:id',
    {
      config: { access: { roles: CONTRIBUTORS } },
      schema: {
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
    (request) => participants.update(memberOf(request), request.params.id, request.body),
  );

  app.get(
    '/orgs/:orgId/participants/:id/household-members',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        summary: "A participant's household members",
        description: 'Oldest first, then by id. ' + SCOPE,
        params: Params('orgId', 'id'),
        response: { 200: Type.Array(HouseholdMember) },
      },
    },
    (request) => participants.household(memberOf(request), request.params.id),
  );

  app.post(
    '/orgs/:orgId/participants/:id/household-members',
    {
      config: { access: { roles: CONTRIBUTORS } },
      schema: {
        tags,
        summary: "Add a member to a participant's household",
        description: 'Age in completed years, 0 to 130. ' + SCOPE,
        params: Params('orgId', 'id'),
        body: CreateHouseholdMemberBody,
        response: { 201: HouseholdMember },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await participants.addHouseholdMember(memberOf(request), request.params.id, request.body)),
  );
};
