import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { Params } from '../../http/schemas/schemas.js';
import { FeedEntry } from './feed.schemas.js';
import { listFeed } from './feed.service.js';

export const feedRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db }) => {
  app.get(
    '/orgs/:orgId/activity-feed',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listFeedEntries',
        tags: ['Activity feed'],
        summary: 'Recent events across the organization',
        description:
          'Newest first (ties by id). Without `page` or `limit` the 50 newest entries as an array; with them the ' +
          'paging envelope. Reporters see organization-wide events and those of their assigned projects only.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(FeedEntry) },
      },
    },
    (request) => listFeed(db, memberOf(request), request.query),
  );
};
