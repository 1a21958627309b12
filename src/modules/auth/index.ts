/** What other modules and the entry points may use of the auth module (docs/architecture.md, "Module order"). */
export { findUserById, findUserName } from './auth.repo.js';
export { authRoutes } from './auth.routes.js';
export { passwordResetUsable, recordProvenAddress } from './auth.service.js';
export { idpRoutes } from './idp.routes.js';
export { findOrCreateAccount, issuePasswordLink, SETUP_LINK_TTL_SECONDS } from './operator-accounts.js';
export { PasswordHasher } from './passwords.js';
