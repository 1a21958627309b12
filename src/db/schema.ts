export * from '../modules/auth/auth.tables.js';
export * from '../modules/feed/feed.tables.js';
export * from '../modules/mail/mail.tables.js';
export * from '../modules/orgs/orgs.tables.js';
export * from '../modules/programs/programs.tables.js';
export * from '../modules/projects/projects.tables.js';
