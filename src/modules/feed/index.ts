/** What other modules and the entry points may use of the feed module (docs/architecture.md, "Module order"). */
export { feedRoutes } from './feed.routes.js';
export { type FeedEvent, recordFeedEvent, recordFeedEventBy } from './feed.service.js';
