import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Params } from '../../http/schemas/schemas.js';
import { PROJECT_BATCH } from './activities-document.js';
import { ActivitiesQuery, IatiActivitiesDocument } from './iati.schemas.js';
import { iatiActivities } from './iati.service.js';

const DESCRIPTION = [
  'An `iati-activities` document (IATI 2.03), one `iati-activity` per project of the organization by ' +
    'code, or only the project `projectId`; streamed, read ' +
    `${PROJECT_BATCH} projects at a time. The organization needs an \`iatiRef\` (409 otherwise), and ` +
    'at least one project (409); projects whose codes give the same `iati-identifier` are refused ' +
    'before the first byte (409 naming their codes: IATI needs each activity once).',
  '`iati-identifier`: the organization’s `iatiRef`, a dash, the project code (whitespace and `/ & | ?` ' +
    'in it become dashes). `reporting-org` and the implementing `participating-org` (role 4): the ' +
    'organization with its `iatiRef` and `iatiOrgType`; funding `participating-org`s (role 1): the donors ' +
    'of the project’s program, typed from their kind (bilateral and government 10, multilateral 40, ngo ' +
    '21, private 70, other 90). `description`: the project’s, else its name.',
  '`activity-status`: draft 1, active 2, suspended 6, completed 3 (Finalisation: reports still come in). ' +
    '`activity-date`: planned start and end (1, 3) from the project’s dates; actual start (2) once the ' +
    'project is no longer draft and its start date has come; actual end (4) once it is completed and its ' +
    'end date has passed. `default-currency`: the project’s currency.',
  '`budget` (type 1 original, status 1 indicative): the budget lines’ planned amounts summed, spread ' +
    'over the project’s years from its start date (IATI asks for periods of a year at most) in ' +
    'proportion to their days, in cents adding up to the total; none without budget lines.',
  '`result`s: the results framework’s nodes that have indicators linked to the project, in the tree’s ' +
    'order, typed impact 3, outcome 2, output 1; linked indicators attached to no node go under one ' +
    'result of type 9 (Other). Each `indicator` (measure 2 when its unit is a percentage, else 1) has its ' +
    'link’s `baseline` (dated its baselineYear, else the project’s start year) and a `period` per ' +
    'reporting period of the project: `target` and `actual` from the APPROVED report of that period only, ' +
    'and one more `actual` per category of its disaggregations, with a `dimension` (name: the ' +
    'disaggregation, value: the category); a cell of a cross (sex by age) is one `actual` with one ' +
    '`dimension` per crossed disaggregation (name Sex value female, name Age value 15-24). A formula indicator’s `actual` is its formula over its ' +
    'inputs’ approved values of that period; it has no target.',
].join('\n\n');

export const iatiRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, replica, config }) => {
  app.get(
    '/orgs/:orgId/iati/activities.xml',
    {
      config: { access: { roles: MANAGERS } },
      schema: {
        operationId: 'exportIatiActivities',
        tags: ['Reports'],
        summary: 'Results published to IATI: the projects as an IATI 2.03 activities document',
        description: DESCRIPTION,
        params: Params('orgId'),
        querystring: ActivitiesQuery,
        // Both answers are declared for the document only: the 200 is a stream no serializer reads.
        answers: {
          200: IatiActivitiesDocument,
          409: {
            description: 'The organization has no iatiRef, or no project',
            content: { 'application/json': errorResponse('The organization has no iatiRef, or no project') },
          },
        },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      // On the read replica (read-your-writes aside), the project's access check on the primary.
      const document = await iatiActivities(db, replica, member, request.query.projectId, {
        exportStatementMs: config.databaseTimeouts.exportStatementMs,
      });
      return reply.type('application/xml; charset=utf-8').send(document);
    },
  );
};
