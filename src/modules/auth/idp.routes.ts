import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';

const NOT_CONFIGURED = 'External sign-in is not configured';

/**
 * Sign-in through an external OpenID Connect provider. Without OIDC_* configuration both routes answer
 * 404 (DECISIONS.md section 3); the provider flow itself is built by its own issue, and until then
 * buildApp refuses to start with OIDC_* set rather than pretend to support it.
 */
export const idpRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { config }) => {
  if (config.oidc)
    throw new Error('OIDC_* are set, but external sign-in is not available in this version yet');
  const notConfigured = () => {
    throw new AppError(404, NOT_CONFIGURED);
  };
  const schema = { tags: ['Authentication'] };
  app.get(
    '/auth/idp',
    {
      config: { access: 'public' },
      schema: {
        ...schema,
        summary: 'Start sign-in with the external identity provider',
        description: `404 \`${NOT_CONFIGURED}\` while OIDC_* are unset.`,
      },
    },
    notConfigured,
  );
  app.get(
    '/auth/idp/callback',
    {
      config: { access: 'public' },
      schema: {
        ...schema,
        summary: "The identity provider's redirect back",
        description: `404 \`${NOT_CONFIGURED}\` while OIDC_* are unset.`,
      },
    },
    notConfigured,
  );
};
