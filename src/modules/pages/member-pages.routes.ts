import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, notFound, tokenRefused } from '../../errors/catalogue.js';
import { ADMINS, memberOf, sessionOf } from '../../http/pipeline/access.js';
import { Params, Redirect } from '../../http/schemas/schemas.js';
import { itemsOf } from '../../http/schemas/pagination.js';
import { findUserById } from '../auth/index.js';
import { WebhookService } from '../webhooks/index.js';
import { pickLocale } from '../../lib/i18n/i18n.js';
import { signInPage } from './account-pages.js';
import { externalSignInPage } from './external-sign-in-page.js';
import type { Assets } from './assets.js';
import { indicatorReportPage } from './indicator-report-page.js';
import { layout, type PageContent } from './layout.js';
import { indicatorReportView, memberForProject, reportingPeriodView } from './member-views.js';
import { AFTER_SIGN_IN, sameOriginPath, signInFor } from './next-path.js';
import { htmlAnswers, PAGE_HEADERS, sendPage } from './page-replies.js';
import { forbiddenPage, notFoundPage, troublePage } from './refusal-pages.js';
import { reportingPeriodPage } from './reporting-period-page.js';
import { settingsPage, webhooksPage } from './settings-pages.js';

const tags = ['Member pages'];
const produces = ['text/html'];
/** Pages of a member's work: read like the API's routes, counted in the general limit. */
const signedIn = { access: 'signed-in', rateLimitBucket: 'general' } as const;
const REFUSALS =
  'Signed out (or with an expired session): 303 to /sign-in?next=<this path>. A page for a signed-in user ' +
  'is never JSON: 403 page when the API would refuse the user, 404 page for an id that is unknown, ' +
  "malformed, or another organization's.";
const SIGNED_OUT = Redirect('Signed out: to /sign-in?next=<this path>');
const pageAnswers = (ok: string) => ({
  ...htmlAnswers({ 200: ok, 403: 'The signed-in user may not see it', 404: 'No such page for this user' }),
});

/** Which page a refusal becomes; anything else goes to the app's handler (and becomes a page on its way out). */
function refusalOf(err: FastifyError): 'sign-in' | 403 | 404 | null {
  const status = err instanceof AppError ? err.statusCode : err.validation ? 400 : err.statusCode;
  if (status === 401) return 'sign-in';
  if (status === 403) return 403;
  return status === 400 || status === 404 ? 404 : null;
}

/**
 * The pages behind the links in the emails to members, for when APP_URL is this service: the indicator
 * report (returned-report email, reminders), the reporting period (reminders), the notification
 * settings (reminders) and the webhook settings (failing-endpoint email), with the sign-in page they go
 * through. Access is the API's: the routes declare it like the API's, and the data comes from the same
 * rules (src/modules/projects/project-scope.ts). Every write is the page script's call to the API.
 */
export const memberPageRoutes: FastifyPluginAsyncTypebox<AppContext & { assets: Assets }> = async (
  app,
  ctx,
) => {
  const { assets, db } = ctx;
  const webhooks = new WebhookService(db, ctx.config, ctx.clock, ctx.webhooksQueued);
  const send = (reply: FastifyReply, content: PageContent, status = 200) =>
    sendPage(reply, assets, content, status);
  const emailOf = (request: FastifyRequest) => request.session?.email ?? null;

  const idp = ctx.config.oidc ? `${ctx.config.baseUrl}/auth/idp` : null;
  /** The sign-in page's language: `?lang=`, then Accept-Language, then English. */
  const localeOf = (request: FastifyRequest) =>
    pickLocale(
      new URLSearchParams(request.url.split('?')[1] ?? '').get('lang'),
      request.headers['accept-language'],
    );

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const refusal = refusalOf(err);
    if (refusal === 'sign-in') {
      return reply.header('cache-control', 'no-store').redirect(signInFor(request.url), 303);
    }
    if (refusal === 403) return send(reply, forbiddenPage(emailOf(request), request.url), 403);
    // A sign-in link whose query is malformed (a control character, past 2,048) is an ignored `next`.
    if (refusal === 404 && request.routeOptions.url === '/sign-in') {
      return send(reply, signInPage(AFTER_SIGN_IN, idp, localeOf(request)));
    }
    if (refusal === 404) return send(reply, notFoundPage(emailOf(request)), 404);
    throw err;
  });
  // What the app's handler answered in JSON (a 429, a 503 while the database is away) as a page.
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (reply.statusCode < 400 || !type.startsWith('application/json')) return payload;
    void reply.headers(PAGE_HEADERS);
    return layout(assets, troublePage(reply.statusCode));
  });

  app.get(
    '/sign-in',
    {
      config: { access: 'public', rateLimitBucket: 'public' },
      schema: {
        operationId: 'getSignInPage',
        tags,
        summary: 'The sign-in page ({APP_URL}/sign-in?next=<path>)',
        description:
          'HTML: email and password, sent by the page script to POST /auth/login (which sets the `jwt` ' +
          'cookie), then on to `next`. `next` is taken only when it is a path of this service: it starts ' +
          'with one `/` (not `//` nor `/\\`) and holds no backslash, space or control character, and is not ' +
          `the sign-in page; anything else (another site, an absolute URL) is ignored for ${AFTER_SIGN_IN}, ` +
          'the settings page. Already signed in: 303 straight to `next`. The page also sends a reset ' +
          'link (POST /auth/forgot-password) to the address typed in, and, when external sign-in is ' +
          'configured (OIDC_*), links to GET /auth/idp (which ends at the settings page).',
        querystring: Type.Object({
          next: Type.Optional(Type.String({ maxLength: 2048 })),
          lang: Type.Optional(
            Type.String({
              maxLength: 35,
              description: 'The page’s language (en, fr, es, pt or ar); else Accept-Language, else English',
            }),
          ),
        }),
        produces,
        response: htmlAnswers({ 200: 'The sign-in page (a malformed `next` is ignored too)' }),
        answers: { 303: Redirect('Already signed in: to `next`') },
      },
    },
    async (request, reply) => {
      const next = sameOriginPath(request.query.next) ?? AFTER_SIGN_IN;
      if (request.session) return reply.header('cache-control', 'no-store').redirect(next, 303);
      return send(reply, signInPage(next, idp, localeOf(request)));
    },
  );

  app.get(
    '/auth/callback',
    {
      config: { access: 'public', rateLimitBucket: 'public' },
      schema: {
        operationId: 'getExternalSignInPage',
        tags,
        summary: 'Where sign-in with the identity provider ends ({FRONTEND_URL}/auth/callback)',
        description:
          'For when FRONTEND_URL is this service (its default is APP_URL). With the session the callback ' +
          `set: 303 to ${AFTER_SIGN_IN}, the settings page. Otherwise (an \`error\` code, or no session): ` +
          'a page saying why the sign-in failed, in words for the code, with a link back to the sign-in ' +
          'page. `user` is not read: the session cookie says who signed in.',
        querystring: Type.Object({
          error: Type.Optional(Type.String({ maxLength: 200 })),
          user: Type.Optional(Type.String({ maxLength: 2048 })),
        }),
        produces,
        response: htmlAnswers({ 200: 'The sign-in failed: why' }),
        answers: { 303: Redirect('Signed in: to the settings page') },
      },
    },
    async (request, reply) => {
      if (request.session && !request.query.error) {
        return reply.header('cache-control', 'no-store').redirect(AFTER_SIGN_IN, 303);
      }
      return send(reply, externalSignInPage(request.query.error));
    },
  );

  app.get(
    '/projects/:projectId/indicator-reports/:reportId',
    {
      config: signedIn,
      schema: {
        operationId: 'getIndicatorReportPage',
        tags,
        summary: 'The indicator report page ({APP_URL}/projects/<projectId>/indicator-reports/<reportId>)',
        description:
          'HTML of GET /orgs/:orgId/indicator-reports/:id, found in whichever of the user’s organizations ' +
          'holds the project: project, indicator, period, value and breakdown, status, narrative, who ' +
          'submitted it, and who returned it and their comment. While it is draft or returned and its period ' +
          'open, reporters of the project, M&E officers and admins get a form that corrects it ' +
          '(PATCH /orgs/:orgId/indicator-reports/:id, with If-Match) and submits it ' +
          '(PATCH …/submit); viewers read only. A reporter sees only reports of projects assigned to them ' +
          '(403). ' +
          REFUSALS,
        params: Params('projectId', 'reportId'),
        produces,
        response: pageAnswers('The report'),
        answers: { 303: SIGNED_OUT },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const member = await memberForProject(db, ctx.memberships, session, request.params.projectId);
      if (!member) throw notFound('Indicator report');
      const view = await indicatorReportView(db, member, request.params.projectId, request.params.reportId);
      return send(reply, indicatorReportPage(view, session.email));
    },
  );

  app.get(
    '/projects/:projectId/reporting-periods/:periodId',
    {
      config: signedIn,
      schema: {
        operationId: 'getReportingPeriodPage',
        tags,
        summary: 'The reporting period page ({APP_URL}/projects/<projectId>/reporting-periods/<periodId>)',
        description:
          'HTML: the period’s dates and deadline, and each indicator reported in it (linked to the project, ' +
          'not a formula) with its report’s state: still to do (not started, draft, returned) first, then ' +
          'submitted or approved, each with a link to its report page. While the period is open, reporters ' +
          'of the project, M&E officers and admins can start a missing report (POST ' +
          '/orgs/:orgId/projects/:projectId/indicator-reports), which opens its page. A reporter sees only ' +
          'projects assigned to them (403). ' +
          REFUSALS,
        params: Params('projectId', 'periodId'),
        produces,
        response: pageAnswers('The reporting period'),
        answers: { 303: SIGNED_OUT },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const member = await memberForProject(db, ctx.memberships, session, request.params.projectId);
      if (!member) throw notFound('Reporting period');
      const view = await reportingPeriodView(db, member, request.params.projectId, request.params.periodId);
      const today = ctx.clock.now().toISOString().slice(0, 10);
      return send(reply, reportingPeriodPage(view, session.email, today));
    },
  );

  app.get(
    '/settings',
    {
      config: signedIn,
      schema: {
        operationId: 'getSettingsPage',
        tags,
        summary: 'The notification settings page ({APP_URL}/settings)',
        description:
          'HTML: deadline reminders on or off (PATCH /auth/me with `notifications.reminders`), the user’s ' +
          'organizations with their role (and, for admins, a link to the webhooks page), and signing out ' +
          '(POST /auth/logout). Where signing in leads when no other page was asked for. ' +
          REFUSALS,
        produces,
        response: htmlAnswers({ 200: 'The settings' }),
        answers: { 303: SIGNED_OUT },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const user = await findUserById(db, session.userId);
      if (!user) throw tokenRefused();
      return send(reply, settingsPage(user, await ctx.memberships.list(db, session.userId)));
    },
  );

  app.get(
    '/orgs/:orgId/settings/webhooks',
    {
      config: { access: { roles: ADMINS }, rateLimitBucket: 'general' },
      schema: {
        operationId: 'getWebhooksPage',
        tags,
        summary: 'The webhooks settings page ({APP_URL}/orgs/<orgId>/settings/webhooks)',
        description:
          'HTML for the organization’s admins, as GET /orgs/:orgId/webhooks: each endpoint’s address, ' +
          'events and state (active, failing since when, turned off by the service or by an admin), and ' +
          'for one turned off a button that turns it back on (PATCH /orgs/:orgId/webhooks/:id with ' +
          '`{"active": true}`). As in the API, a member who is not an admin, and a user who is not a ' +
          'member of the organization (an unknown organization too), get the 403 page. ' +
          REFUSALS,
        params: Params('orgId'),
        produces,
        response: pageAnswers('The webhook endpoints'),
        answers: { 303: SIGNED_OUT },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = memberOf(request);
      const organization = (await ctx.memberships.list(db, userId)).find((m) => m.organization.id === orgId);
      if (!organization) throw notFound('Organization');
      const endpoints = itemsOf(await webhooks.list(orgId, {}));
      return send(reply, webhooksPage(organization.organization, endpoints, sessionOf(request).email));
    },
  );
};
