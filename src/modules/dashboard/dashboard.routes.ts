import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { Params } from '../../http/schemas/schemas.js';
import { DashboardSummary } from './dashboard.schemas.js';
import { DEADLINE_WINDOW_DAYS, OFF_TRACK_LIMIT, routedDashboard } from './dashboard.service.js';

export const dashboardRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, replica }) => {
  app.get(
    '/orgs/:orgId/dashboard-summary',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getDashboardSummary',
        tags: ['Dashboard'],
        summary: 'The organization at a glance',
        description:
          'Project counts (activeProjects: status active); budgets and spending (budget lines’ actual amounts) ' +
          'summed per currency; indicator-project pairs per band of their org-level score (every submitted and ' +
          `approved value); reporting periods due from today to today + ${DEADLINE_WINDOW_DAYS} days (UTC, both ` +
          'included, locked or not), soonest first; per program its status, project count, money and ' +
          'indicatorCompletionRate (the percent of its indicator-project pairs on track, no_target and no_data ' +
          'pairs included in the whole; null without pairs: not a reporting completion rate), by name; and up to ' +
          `${OFF_TRACK_LIMIT} off-track pairs, largest gap first, shaped as in \`GET /indicators?status=\`. ` +
          'Reporters: only their assigned projects, and only the programs holding them.',
        params: Params('orgId'),
        response: { 200: DashboardSummary },
      },
    },
    // On the read replica (read-your-writes aside), a reporter's projects read on the primary.
    (request) => routedDashboard(db, replica, memberOf(request)),
  );
};
