import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors/catalogue.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Redirect } from '../../http/schemas/schemas.js';
import { ExternalSignIn, FLOW_TTL_SECONDS, SignInFailure } from './idp.service.js';
import { RegistrationPolicy, type InvitedAddress } from './registration-policy.js';

const NOT_CONFIGURED = 'External sign-in is not configured';
const FLOW_COOKIE = 'idp_flow';

/**
 * Sign-in through an external OpenID Connect provider (DECISIONS.md section 3). Without OIDC_* both
 * routes answer 404. Both legs end in a redirect: to the provider, then to the front end's
 * `/auth/callback` with the user's id or an error code.
 */
export const idpRoutes: FastifyPluginAsyncTypebox<AppContext & { invited: InvitedAddress }> = async (
  app,
  { config, db, sessions, memberships, invited },
) => {
  const signIn = config.oidc
    ? new ExternalSignIn(
        db,
        sessions,
        memberships,
        config.oidc,
        config.jwtSecret,
        app.log,
        new RegistrationPolicy(config.registration, invited),
      )
    : null;
  const secure = sessions.secureCookie;
  // Sent back only to the callback, wherever the service is mounted (BASE_URL may have a path prefix).
  const flowPath = config.oidc ? new URL(config.oidc.redirectUri).pathname : '/';
  const callbackUrl = (params: Record<string, string>) =>
    `${config.frontendUrl}/auth/callback?${new URLSearchParams(params).toString()}`;
  const failed = (reply: FastifyReply, err: unknown) => {
    if (!(err instanceof SignInFailure)) throw err;
    app.log.warn({ err: err.cause ?? err, code: err.code }, 'external sign-in failed');
    return reply.redirect(callbackUrl({ error: err.code }), 302);
  };
  const configured = () => {
    if (!signIn) throw new AppError(404, NOT_CONFIGURED);
    return signIn;
  };
  const tags = ['Authentication'];

  app.get(
    '/auth/idp',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'startExternalSignIn',
        tags,
        summary: 'Start sign-in with the external identity provider',
        description:
          'Redirects (302) to the provider: authorization code flow with PKCE (S256), `state` and `nonce`, kept ' +
          `for ${FLOW_TTL_SECONDS / 60} minutes in a signed HttpOnly cookie \`${FLOW_COOKIE}\`. A provider that ` +
          'cannot be reached: redirect to `{FRONTEND_URL}/auth/callback?error=provider_unavailable`. ' +
          `404 \`${NOT_CONFIGURED}\` while OIDC_* are unset.`,
        response: { 404: errorResponse(NOT_CONFIGURED) },
        answers: {
          302: Redirect(
            `To the provider, setting the flow cookie ${FLOW_COOKIE}; or to the front end with an error`,
            ['Set-Cookie'],
          ),
        },
      },
    },
    async (_request, reply) => {
      const service = configured();
      try {
        const { url, flow } = await service.start();
        void reply.setCookie(FLOW_COOKIE, flow, {
          httpOnly: true,
          path: flowPath,
          sameSite: 'lax',
          secure,
          maxAge: FLOW_TTL_SECONDS,
        });
        return await reply.redirect(url, 302);
      } catch (err) {
        return failed(reply, err);
      }
    },
  );

  app.get(
    '/auth/idp/callback',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'finishExternalSignIn',
        tags,
        summary: "The identity provider's redirect back",
        description:
          'Checks `state` against the flow cookie, exchanges the code (PKCE), validates the ID token (issuer, ' +
          'audience, nonce, expiry) and requires `email_verified`. The user is found by provider and subject, ' +
          'else the user with that email is linked (a password that user had is removed and their sessions end: ' +
          'registration never proved the email; forgot-password sets a new one), else a user without a password ' +
          'is created (names from ' +
          'given_name/family_name or name). Success: the `jwt` cookie is set and the browser is sent to ' +
          '`{FRONTEND_URL}/auth/callback?user=<URL-encoded JSON {id, createdAt}>`: no email or names, which ' +
          'would stay in browser history and proxy logs; the front end reads them from `GET /auth/me`. ' +
          'Any failure creates no session and ' +
          'redirects to `{FRONTEND_URL}/auth/callback?error=<code>`: the provider’s own code (e.g. ' +
          '`access_denied`, `invalid_grant` for a used code), `invalid_state` (missing, expired or mismatched ' +
          'flow), `invalid_token`, `email_not_verified`, `provider_unavailable`, `registration_closed` (no ' +
          'account has this email, and REGISTRATION allows none to be made for it: `invite` without an open ' +
          'invitation to the address, `domains` outside REGISTRATION_DOMAINS and not invited; as ' +
          '`POST /auth/register` refuses it). The flow cookie is cleared ' +
          `either way. 404 \`${NOT_CONFIGURED}\` while OIDC_* are unset.`,
        response: { 404: errorResponse(NOT_CONFIGURED) },
        answers: {
          302: Redirect(
            'To the front end’s /auth/callback with the user’s id (and the `jwt` cookie) or an error',
            ['Set-Cookie'],
          ),
        },
      },
    },
    async (request, reply) => {
      const service = configured();
      void reply.clearCookie(FLOW_COOKIE, { httpOnly: true, path: flowPath, sameSite: 'lax', secure });
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        const { user, token } = await service.finish(query, request.cookies[FLOW_COOKIE]);
        sessions.setCookie(reply, token);
        // A URL stays in browser history and proxy logs: no email or names in it (issue 36, finding 12).
        const named = { id: user.id, createdAt: user.createdAt };
        return await reply.redirect(callbackUrl({ user: JSON.stringify(named) }), 302);
      } catch (err) {
        return failed(reply, err);
      }
    },
  );
};
