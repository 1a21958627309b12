import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { sessionOf } from '../../http/pipeline/access.js';
import { normalizeEmailField } from '../../http/schemas/validation.js';
import { MessageBody, NoContent, withExample } from '../../http/schemas/schemas.js';
import {
  ForgotPasswordBody,
  LoginBody,
  Me,
  RegisterBody,
  ResetPasswordBody,
  TokenBody,
  TokenResponse,
  UpdateMeBody,
  User,
  VerifyEmailBody,
} from './auth.schemas.js';
import { AuthService } from './auth.service.js';
import type { PasswordHasher } from './passwords.js';
import { RegistrationPolicy, type InvitedAddress } from './registration-policy.js';
import { CREDENTIALS, REGISTRATION, TOKEN, TOKEN_REQUEST, USER } from './auth.examples.js';

const tags = ['Authentication'];
/** Routes that hash a password: refused at once when too many hashes already wait (issue 20, finding 9). */
const BUSY = errorResponse(
  'Too many password hashes waiting: `The service is busy, retry in 5 seconds`, with `Retry-After: 5`',
);
const SLOWED =
  ' After 5 failed password sign-ins for one email (from any address, by login or token, the last within ' +
  'an hour) each attempt waits before it is checked: 250 ms, doubling with each further failure, at most 10 s, ' +
  'counted from the last failure. Attempts at the same time take turns: one whose turn is more than 10 s ' +
  'away is refused unchecked with 429 `rate_limited` and `Retry-After`. Never a lockout: the right password ' +
  'after the wait signs in and clears the count, as does a password reset. An unknown email is counted and ' +
  'slowed alike.';

const REGISTRATION_RULE =
  'Who may register is the deployment’s choice (REGISTRATION): `open` (the default) takes anyone; ' +
  '`invite` only an address holding an open invitation to any organization (neither accepted nor ' +
  'expired: the invitation page makes the invited person’s account so); `domains` only an address whose ' +
  'part after the `@` is one of REGISTRATION_DOMAINS, in any case (subdomains are not included), or an ' +
  'invited one. Any other address, once the body is valid: 403 `registration_closed`, whose message says ' +
  'what to do, and no account is made, whether or not the address has one already (409 is only for ' +
  'addresses that may register).';
const REGISTRATION_CLOSED =
  'REGISTRATION is `invite` or `domains` and this address is neither invited nor at an allowed domain ' +
  '(`registration_closed`)';

/**
 * The account routes; `passwords` is the process's one hasher (made in `buildApp`, which reads its load),
 * `invited` answers whether an address holds an open invitation (the members module).
 */
export const authRoutes: FastifyPluginAsyncTypebox<
  AppContext & { passwords: PasswordHasher; invited: InvitedAddress }
> = async (app, ctx) => {
  const auth = new AuthService(
    ctx.db,
    ctx.config,
    ctx.sessions,
    ctx.memberships,
    ctx.mailQueued,
    ctx.passwords,
    new RegistrationPolicy(ctx.config.registration, ctx.invited),
  );
  const limited = { preValidation: normalizeEmailField, preHandler: ctx.authLimit };

  app.post(
    '/auth/register',
    {
      ...limited,
      // Public POSTs here have no caller to keep an Idempotency-Key's answers for.
      config: { access: 'public', idempotency: 'none', location: '/auth/me' },
      schema: {
        operationId: 'registerUser',
        tags,
        summary: 'Create an account',
        description:
          'Sets the `jwt` cookie. The new session has no organization until one is created or joined. ' +
          'Emails a link proving the address, `{APP_URL}/verify-email?token=<token>` (7 days, works once), ' +
          'queued in the same transaction as the user. ' +
          REGISTRATION_RULE,
        body: withExample(RegisterBody, REGISTRATION),
        setsCookie: true,
        response: {
          201: withExample(User, USER),
          403: errorResponse(REGISTRATION_CLOSED),
          409: errorResponse('A user with this email already exists'),
          503: BUSY,
        },
      },
    },
    async (request, reply) => {
      const { user, token } = await auth.register(request.body);
      ctx.sessions.setCookie(reply, token);
      return reply.status(201).send(user);
    },
  );

  app.post(
    '/auth/login',
    {
      ...limited,
      config: { access: 'public', idempotency: 'none' },
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'Sign in with email and password',
        description:
          "Sets the `jwt` cookie; the session's organization is the user's first by join date." + SLOWED,
        body: withExample(LoginBody, CREDENTIALS),
        setsCookie: true,
        response: { 200: withExample(User, USER), 503: BUSY },
      },
    },
    async (request, reply) => {
      const { user, token } = await auth.login(request.body);
      ctx.sessions.setCookie(reply, token);
      return user;
    },
  );

  app.post(
    '/auth/token',
    {
      ...limited,
      config: { access: 'public', idempotency: 'none' },
      schema: {
        operationId: 'issueToken',
        tags,
        summary: 'Get a bearer token, or switch organization',
        description:
          'With `email` and `password`: a token for non-browser clients. With `organizationId` and a valid ' +
          'session: a token whose current organization is that one (403 when not a member); when the session ' +
          'came from the cookie, the cookie is re-issued too. The cookie counts only when the request comes ' +
          "from BASE_URL's, APP_URL's or a CORS_ORIGINS origin (its Origin, else its Referer): from anywhere " +
          'else it is ignored and a switch without a bearer token answers 401.' +
          SLOWED,
        body: withExample(TokenBody, TOKEN_REQUEST),
        setsCookie: true,
        response: { 200: withExample(TokenResponse, TOKEN), 503: BUSY },
      },
    },
    async (request, reply) => {
      const token = await auth.token(request.body, request.session);
      if (request.body.organizationId && request.session?.fromCookie) ctx.sessions.setCookie(reply, token);
      return token;
    },
  );

  app.post(
    '/auth/logout',
    {
      // Idempotent by nature; and a key kept per user would replay signing out one session as the sign-out
      // of another, which stays valid.
      config: { access: 'signed-in', idempotency: 'none' },
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out',
        description: 'Clears the cookie and revokes the presented token until it would have expired.',
        setsCookie: true,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await auth.logout(sessionOf(request));
      ctx.sessions.clearCookie(reply);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'getCurrentUser',
        tags,
        summary: 'The signed-in user and their organizations',
        response: { 200: Me },
      },
    },
    (request) => auth.me(sessionOf(request).userId),
  );

  app.patch(
    '/auth/me',
    {
      config: {
        access: 'signed-in',
        conditional: {
          none: "an account is its owner's alone: If-Match guards what an organization's members share",
        },
      },
      schema: {
        operationId: 'updateCurrentUser',
        tags,
        summary: "Change the signed-in user's own settings",
        description:
          "`locale` sets the language of the user's pages and emails (null: not chosen). " +
          '`notifications.reminders: false` stops deadline reminder emails for the user in every ' +
          'organization; `true` turns them back on (reminders already sent are not sent again). At least one ' +
          'field. Answers as `GET /auth/me`.',
        body: UpdateMeBody,
        response: { 200: Me },
      },
    },
    (request) => auth.updateMe(sessionOf(request).userId, request.body),
  );

  app.post(
    '/auth/forgot-password',
    {
      ...limited,
      config: { access: 'public', idempotency: 'none' },
      schema: {
        operationId: 'requestPasswordReset',
        tags,
        summary: 'Email a password-reset link',
        description:
          'Always 202 with the same body, whether or not the email is registered. The link is ' +
          '`{APP_URL}/reset-password?token=<token>`, works once and expires after `RESET_TOKEN_TTL` (1 hour).',
        body: ForgotPasswordBody,
        response: { 202: MessageBody },
      },
    },
    async (request, reply) => {
      await auth.forgotPassword(request.body.email);
      return reply
        .status(202)
        .send({ message: 'If an account exists for this email, a password reset link has been sent' });
    },
  );

  app.post(
    '/auth/reset-password',
    {
      config: { access: 'public', idempotency: 'none' },
      schema: {
        operationId: 'resetPassword',
        tags,
        summary: 'Choose a new password with a reset token',
        description:
          'Every session issued before the reset stops working. Following the link proves the address ' +
          '(`emailVerified`) and clears the count of failed sign-ins. A bad, used or expired token: 400.',
        body: ResetPasswordBody,
        response: { 204: NoContent, 503: BUSY },
      },
    },
    async (request, reply) => {
      await auth.resetPassword(request.body);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/auth/verify-email',
    {
      // No session needed: the link may be opened on another device. Per-IP limit like the other auth routes.
      preHandler: ctx.authLimit,
      config: { access: 'public', idempotency: 'none' },
      schema: {
        operationId: 'verifyEmail',
        tags,
        summary: 'Prove the email address with the emailed verification token',
        description:
          'The token of `{APP_URL}/verify-email?token=<token>`, emailed at registration and by ' +
          'POST /auth/resend-verification: 32 random bytes stored hashed, valid 7 days, works once; using ' +
          "one spends the user's other links. A proven address keeps its password when an identity-provider " +
          'sign-in is linked to it by email. A bad, used or expired token: 400 ' +
          '`Invalid or expired verification token`.',
        body: VerifyEmailBody,
        response: { 204: NoContent, 400: errorResponse('Invalid or expired verification token') },
      },
    },
    async (request, reply) => {
      await auth.verifyEmail(request.body.token);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/auth/resend-verification',
    {
      preHandler: ctx.authLimit,
      config: { access: 'signed-in', idempotency: 'user' },
      schema: {
        operationId: 'resendVerificationEmail',
        tags,
        summary: "Email a new verification link to the signed-in user's address",
        description:
          'Always 202 with the same body. A new link is queued (earlier ones keep working until used or ' +
          'expired) unless the address is already proven, in which case nothing is sent. Limited per IP ' +
          'and user like the other auth routes.',
        response: { 202: MessageBody },
      },
    },
    async (request, reply) => {
      await auth.resendVerification(sessionOf(request).userId);
      return reply.status(202).send({
        message: 'If your email address is not verified yet, a new verification link has been sent',
      });
    },
  );
};
