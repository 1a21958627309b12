import type { IncomingMessage } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import Negotiator from 'negotiator';

type Strategy = NonNullable<NonNullable<FastifyServerOptions['routerOptions']>['constraints']>[string];

/**
 * A route constraint: `{ constraints: { page: 'html' } }` takes the requests whose Accept header prefers
 * HTML to JSON (a browser following a link). The same path without the constraint keeps everything else,
 * so `GET /invitations/:token` stays the JSON of the API for API clients and `*\/*`.
 */
export const pageConstraint: Strategy = {
  name: 'page',
  storage() {
    const handlers = new Map<unknown, ReturnType<ReturnType<Strategy['storage']>['get']>>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, handler) => void handlers.set(value, handler),
    };
  },
  deriveConstraint(request: IncomingMessage) {
    const accept = request.headers.accept;
    // '' matches no page route, so the request goes to the route without the constraint.
    if (!accept?.includes('html')) return '';
    return new Negotiator(request).mediaType(['application/json', 'text/html']) === 'text/html' ? 'html' : '';
  },
  mustMatchWhenDerived: false,
  validate(value: unknown) {
    if (value !== 'html') throw new Error('the page constraint takes only "html"');
  },
};
