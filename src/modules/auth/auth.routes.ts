import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors.js';
import { sessionOf } from '../../http/access.js';
import { normalizeEmailField } from '../../http/hooks.js';
import { MessageBody, NoContent } from '../../http/schemas.js';
import {
  ForgotPasswordBody,
  LoginBody,
  Me,
  RegisterBody,
  ResetPasswordBody,
  TokenBody,
  TokenResponse,
  User,
} from './auth.schemas.js';
import { AuthService } from './auth.service.js';

const tags = ['Authentication'];

export const authRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const auth = new AuthService(ctx.db, ctx.config, ctx.sessions);
  const limited = { preValidation: normalizeEmailField, preHandler: ctx.authLimit };

  app.post(
    '/auth/register',
    {
      ...limited,
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Sets the `jwt` cookie. The new session has no organization until one is created or joined.',
        body: RegisterBody,
        response: { 201: User, 409: errorResponse('A user with this email already exists') },
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
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Sign in with email and password',
        description: "Sets the `jwt` cookie; the session's organization is the user's first by join date.",
        body: LoginBody,
        response: { 200: User },
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
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Get a bearer token, or switch organization',
        description:
          'With `email` and `password`: a token for non-browser clients. With `organizationId` and a valid ' +
          'session: a token whose current organization is that one (403 when not a member); when the session ' +
          'came from the cookie, the cookie is re-issued too.',
        body: TokenBody,
        response: { 200: TokenResponse },
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
      config: { access: 'signed-in' },
      schema: {
        tags,
        summary: 'Sign out',
        description: 'Clears the cookie and revokes the presented token until it would have expired.',
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
      schema: { tags, summary: 'The signed-in user and their organizations', response: { 200: Me } },
    },
    (request) => auth.me(sessionOf(request).userId),
  );

  app.post(
    '/auth/forgot-password',
    {
      ...limited,
      config: { access: 'public' },
      schema: {
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
      if (await auth.forgotPassword(request.body.email)) ctx.mailQueued();
      return reply
        .status(202)
        .send({ message: 'If an account exists for this email, a password reset link has been sent' });
    },
  );

  app.post(
    '/auth/reset-password',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Choose a new password with a reset token',
        description:
          'Every session issued before the reset stops working. A bad, used or expired token: 400.',
        body: ResetPasswordBody,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await auth.resetPassword(request.body);
      return reply.status(204).send(null);
    },
  );
};
