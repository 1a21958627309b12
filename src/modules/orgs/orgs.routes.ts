import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { ADMINS, ALL_ROLES, memberOf, sessionOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { Params, withExample } from '../../http/schemas/schemas.js';
import {
  CreateOrganizationBody,
  MyOrganization,
  Organization,
  UpdateOrganizationBody,
} from './orgs.schemas.js';
import { OrganizationService } from './orgs.service.js';
import { ORGANIZATION, ORGANIZATION_CREATE } from './orgs.examples.js';

const tags = ['Organizations'];

export const organizationRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const organizations = new OrganizationService(ctx.db, ctx.sessions, ctx.config.orgCreation);

  app.get(
    '/orgs',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'listMyOrganizations',
        tags,
        summary: "The caller's organizations with their role",
        description: 'Sorted by name, then id.',
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(MyOrganization) },
      },
    },
    (request) => organizations.listMine(sessionOf(request).userId, request.query),
  );

  app.post(
    '/orgs',
    {
      config: { access: 'signed-in', idempotency: 'user', location: '/orgs/:newId' },
      schema: {
        operationId: 'createOrganization',
        tags,
        summary: 'Create an organization',
        description:
          'The caller becomes its org_admin. The `jwt` cookie is re-issued with the new organizationId; ' +
          'bearer clients call `POST /auth/token` with `organizationId` for a matching token. Taken code: 409. ' +
          '`iatiRef` (the IATI organisation identifier) and `iatiOrgType` (IATI OrganisationType, default 21) ' +
          'are what `GET /orgs/:orgId/iati/activities.xml` publishes the organization as. ' +
          'Who may create one is the deployment’s choice (ORG_CREATION): `anyone` signed in (the default), ' +
          'or `admins`: only a user who is org_admin of an organization already (the first one is made ' +
          'with `npm run admin:create`); anyone else gets 403 `org_creation_closed`, and nothing is created.',
        body: withExample(CreateOrganizationBody, ORGANIZATION_CREATE),
        setsCookie: true,
        response: {
          201: withExample(Organization, ORGANIZATION),
          403: errorResponse(
            'ORG_CREATION is `admins` and the caller is no org_admin (`org_creation_closed`)',
          ),
          409: errorResponse('The code is taken'),
        },
      },
    },
    async (request, reply) => {
      const { organization, token } = await organizations.create(sessionOf(request), request.body);
      ctx.sessions.setCookie(reply, token);
      return reply.status(201).send(organization);
    },
  );

  app.get(
    '/orgs/:orgId',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getOrganization',
        tags,
        summary: 'An organization',
        params: Params('orgId'),
        response: { 200: Organization },
      },
    },
    (request) => organizations.get(memberOf(request).orgId),
  );

  app.patch(
    '/orgs/:orgId',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId' },
      schema: {
        operationId: 'updateOrganization',
        tags,
        summary: 'Change name, code, logo, IATI identity, deadline reminders, four eyes or quality notes',
        description:
          'Any subset of the fields; `logoUrl: null` removes the logo, `iatiRef: null` the IATI identifier ' +
          '(the IATI export then answers 409). Taken code: 409. `reminderDaysBefore` (up to 10 different ' +
          'days from 1 to 90, stored from the most days to the fewest; `[]` for none) and `overdueReminder` ' +
          'decide when deadline reminders are emailed: on each of those days before a reporting period is ' +
          'due, and the day after it was due. `separateApproval: true` makes the review of indicator reports ' +
          'four-eyes: whoever last submitted a report may no longer approve or reject it (403 ' +
          '`separate_approval_required`); `false` (the default) lets them again. Reports submitted before ' +
          'the change follow the setting at the time of their review. `showQualityNotes: true` lets its ' +
          'shared report pages show the data quality flags of the values they include (outliers, validation ' +
          'rules) and their justifications; `false` (the default) shows donors nothing of them. ' +
          '`defaultLocale` (en, fr, es, pt or ar) is the language of its shared report pages when the browser ' +
          'asks for none of these, and of its emails to users who chose no language.',
        params: Params('orgId'),
        body: UpdateOrganizationBody,
        response: { 200: Organization, 409: errorResponse('The code is taken') },
      },
    },
    (request) => organizations.update(memberOf(request).orgId, request.body),
  );
};
