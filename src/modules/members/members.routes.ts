import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { ADMINS, ALL_ROLES, memberOf, sessionOf } from '../../http/pipeline/access.js';
import { varyOnAccept } from '../../http/pipeline/caching.js';
import { normalizeEmailField } from '../../http/schemas/validation.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import {
  AcceptedInvitation,
  Invitation,
  InvitationLookup,
  InviteBody,
  Member,
  RoleBody,
  TokenParams,
} from '../orgs/index.js';
import { InvitationService } from './invitations.service.js';
import { MemberService } from './members.service.js';

const tags = ['Members and invitations'];

export const memberRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const members = new MemberService(ctx.db, ctx.config, ctx.mailQueued, ctx.webhooksQueued);
  const invitations = new InvitationService(ctx.db, ctx.webhooksQueued);

  app.get(
    '/orgs/:orgId/members',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listMembers',
        tags,
        summary: 'Members of the organization',
        description: 'Sorted by join date, then user id.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Member) },
      },
    },
    (request) => members.list(memberOf(request).orgId, request.query),
  );

  app.post(
    '/orgs/:orgId/members',
    {
      preValidation: normalizeEmailField,
      config: { access: { roles: ADMINS }, idempotency: 'user', location: '/orgs/:orgId/invitations' },
      schema: {
        operationId: 'inviteMember',
        tags,
        summary: 'Invite someone by email',
        description:
          'Emails `{APP_URL}/invitations/<token>`, valid 7 days; the person is added when they accept. ' +
          'Inviting the same address again replaces its open invitation (the old link stops working). ' +
          'Already a member: 409.',
        params: Params('orgId'),
        body: InviteBody,
        response: { 201: Invitation, 409: errorResponse('Already a member') },
      },
    },
    async (request, reply) => {
      const invitation = await members.invite(memberOf(request), request.body);
      return reply.status(201).send(invitation);
    },
  );

  app.patch(
    '/orgs/:orgId/members/:userId',
    {
      config: {
        access: { roles: ADMINS },
        conditional: { none: 'a membership has no GET of its own (read in the list of members)' },
      },
      schema: {
        operationId: 'changeMemberRole',
        tags,
        summary: "Change a member's role",
        description: 'Demoting the last org_admin: 409. Takes effect on the member’s next request.',
        params: Params('orgId', 'userId'),
        body: RoleBody,
        response: { 200: Member, 409: errorResponse('Demoting the last org_admin') },
      },
    },
    (request) => members.changeRole(memberOf(request), request.params.userId, request.body.role),
  );

  app.delete(
    '/orgs/:orgId/members/:userId',
    {
      config: {
        access: { roles: ADMINS, orSelf: 'userId' },
        conditional: { none: 'a membership has no GET of its own (read in the list of members)' },
      },
      schema: {
        operationId: 'removeMember',
        tags,
        summary: 'Remove a member, or leave',
        description:
          'org_admins remove anyone; any member may remove themself. Removing the last org_admin: 409. ' +
          'Their project assignments end with the membership.',
        params: Params('orgId', 'userId'),
        response: { 204: NoContent, 409: errorResponse('Removing the last org_admin') },
      },
    },
    async (request, reply) => {
      await members.remove(memberOf(request), request.params.userId);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgId/invitations',
    {
      config: { access: { roles: ADMINS } },
      schema: {
        operationId: 'listInvitations',
        tags,
        summary: 'Open invitations',
        description:
          'Invitations not yet accepted or revoked, newest first; `status` is `expired` past `expiresAt`.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Invitation) },
      },
    },
    (request) => invitations.list(memberOf(request).orgId, request.query),
  );

  app.delete(
    '/orgs/:orgId/invitations/:id',
    {
      config: {
        access: { roles: ADMINS },
        conditional: {
          none: 'an invitation has no GET of its own here (read in the list of open invitations)',
        },
      },
      schema: {
        operationId: 'revokeInvitation',
        tags,
        summary: 'Revoke an open invitation',
        description: 'Its link stops working at once.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await invitations.revoke(memberOf(request).orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/invitations/:token',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getInvitation',
        tags,
        summary: 'What an invitation link offers',
        description:
          'Unknown, used, revoked or expired: 404. This is also the path of the emailed link: a request whose ' +
          'Accept header prefers text/html to JSON (a browser) gets the invitation page instead, which ' +
          'signs in or creates the account and accepts through this API; `*/*` and JSON clients get this.',
        params: TokenParams,
        response: { 200: InvitationLookup },
      },
    },
    (request, reply) => {
      // The same URL is the invitation page for browsers: caches must keep the two apart.
      void reply.header('vary', varyOnAccept(reply));
      return invitations.lookup(request.params.token);
    },
  );

  app.post(
    '/invitations/:token/accept',
    {
      config: {
        access: 'signed-in',
        idempotency: 'user',
        conditional: { none: 'accepting makes a membership; the invitation its link reads is not edited' },
      },
      schema: {
        operationId: 'acceptInvitation',
        tags,
        summary: 'Accept an invitation',
        description:
          "The signed-in user's email must be the invited one (else 403). Unknown, used or expired: 404. " +
          'Switch to the organization with `POST /auth/token { organizationId }`.',
        params: TokenParams,
        response: { 200: AcceptedInvitation, 409: errorResponse('Already a member') },
      },
    },
    (request) => invitations.accept(sessionOf(request), request.params.token),
  );
};
