import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ADMINS, memberOf } from '../../http/pipeline/access.js';
import { badRequest } from '../../errors/catalogue.js';
import { Collection, paginate } from '../../http/schemas/pagination.js';
import { Params } from '../../http/schemas/schemas.js';
import { countAuditEntries, listAuditEntries } from './audit-log.repo.js';
import { AuditEntry, AuditQuery } from './audit-log.schemas.js';

const instant = (text: string) => {
  const time = Date.parse(text);
  return Number.isFinite(time) && time >= 0 && time < Date.UTC(10_000, 0, 1);
};

export const auditLogRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db }) => {
  app.get(
    '/orgs/:orgId/audit-log',
    {
      config: { access: { roles: ADMINS } },
      schema: {
        operationId: 'listAuditEntries',
        tags: ['Personal data'],
        summary: 'Who read or changed personal data',
        description:
          'Newest first (ties by id). One entry per response that carried personal data in clear (viewers ' +
          'get none, so their reads are not entries), per erasure, per export, per retention run and per ' +
          'key rotation. `subjectId` finds every entry about one participant, household member or ' +
          'submission, lists included; `from` and `to` bound `at`, both inclusive. The log is append-only: ' +
          'entries are removed only by the retention purge (AUDIT_RETENTION, 2 years by default).',
        params: Params('orgId'),
        querystring: AuditQuery,
        response: { 200: Collection(AuditEntry) },
      },
    },
    async (request) => {
      const { orgId } = memberOf(request);
      const filter = request.query;
      // The format lets through instants a timestamp cannot hold (year 0, a leap second): 400, not 500.
      const problems = (['from', 'to'] as const).flatMap((name) =>
        filter[name] !== undefined && !instant(filter[name])
          ? [`${name} must be an instant from 1970 to 9999`]
          : [],
      );
      if (problems.length > 0) throw badRequest(...problems);
      if (filter.from && filter.to && Date.parse(filter.from) > Date.parse(filter.to)) {
        throw badRequest('from must not be after to');
      }
      return paginate(filter, {
        count: () => countAuditEntries(db, orgId, filter),
        list: (window) => listAuditEntries(db, orgId, filter, window),
      });
    },
  );
};
