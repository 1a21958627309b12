import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { Params } from '../../http/schemas/schemas.js';
import { DataQuality, DataQualityQuery } from './data-quality.schemas.js';
import { routedDataQuality } from './data-quality.service.js';

export const dataQualityRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, replica }) => {
  app.get(
    '/orgs/:orgId/data-quality',
    {
      config: { access: { roles: ALL_ROLES } },
      // Tens of thousands of periods at a time: the answer is built with exactly the schema's fields
      // (data-quality.service.ts), and the runtime's JSON.stringify writes it three times faster than a
      // compiled serializer does (measured at 1,000 projects: 24,000 periods, 7.5 MB).
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: {
        operationId: 'getDataQuality',
        tags: ['Data quality'],
        summary: 'Completeness and timeliness of reporting',
        description:
          'Per project and reporting period, and summed per project and for the whole scope: the values ' +
          'expected (each linked indicator that is not a formula, once per period), entered (a value saved, ' +
          'any status), reported (submitted or approved), reported on time (first submitted on or before the ' +
          'due date, as a UTC day; a resubmission after a rejection keeps the first date; a period without ' +
          'a due date has no deadline to miss), approved and flagged (carrying data-quality flags), with ' +
          'each as a percent of expected (one decimal, null when nothing is expected); and per indicator ' +
          'expected in scope, its open flags (flags on values not approved yet), most first. `programId` ' +
          'keeps the projects of one program (404 when the organization has no such program); ' +
          '`periodFrom`/`periodTo` keep the periods overlapping that range (both days included, either ' +
          'may be left out; 400 when periodTo is before periodFrom). Projects without a period in scope are ' +
          'left out. Reporters: only their assigned projects. Counts only: no value, no personal data.',
        params: Params('orgId'),
        querystring: DataQualityQuery,
        response: { 200: DataQuality },
      },
    },
    (request) => routedDataQuality(db, replica, memberOf(request), request.query),
  );
};
