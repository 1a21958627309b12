import type { FastifyReply } from 'fastify';
import { varyOnAccept } from '../../http/pipeline/caching.js';
import type { Assets } from './assets.js';
import { layout, PAGE_POLICY, type PageContent } from './layout.js';

/** The page's answers for the OpenAPI document: HTML, whatever the status. */
export const htmlAnswers = (pages: Record<number, string>) =>
  Object.fromEntries(
    Object.entries(pages).map(([status, description]) => [
      status,
      { description, content: { 'text/html': { schema: { type: 'string' } } } },
    ]),
  );

/** A whole page, with the headers every page carries. */
/** The headers of every page, whatever its status. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_POLICY,
  // Links are tokens or a member's own data: a closed form, a revoked report or what one member
  // read must not come back from a cache.
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
} as const;

export function sendPage(reply: FastifyReply, assets: Assets, content: PageContent, status = 200) {
  return reply
    .status(status)
    .headers(PAGE_HEADERS)
    .header('vary', varyOnAccept(reply))
    .send(layout(assets, content));
}
