import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../errors/catalogue.js';
import { passwordResetUsable } from '../auth/index.js';
import { SubmissionService } from '../forms/index.js';
import { InvitationService } from '../members/index.js';
import { defaultLocaleOf } from '../orgs/index.js';
import { SharingService } from '../reports/index.js';
import { LOCALES, matchLocale, pickLocale, translator, type Locale } from '../../lib/i18n/i18n.js';
import { invitationPage, resetPasswordPage, verifyEmailPage } from './account-pages.js';
import { Assets } from './assets.js';
import {
  chooseFormLanguage,
  FORM_WORKER_PATH,
  formPage,
  unavailableFormPage,
  type PublicFormView,
} from './form-page.js';
import { notice, type PageContent } from './layout.js';
import { memberPageRoutes } from './member-pages.routes.js';
import { htmlAnswers, sendPage } from './page-replies.js';
import { reportPage } from './report-page.js';

const tags = ['Public pages'];
const produces = ['text/html'];
const answers = htmlAnswers;
const TokenParams = Type.Object({ token: Type.String({ maxLength: 2048 }) }, { additionalProperties: false });
const page = { access: 'public', rateLimitBucket: 'public' } as const;

/** What a page says instead when its link leads nowhere, by the status the service answered (`common` notices). */
const UNAVAILABLE_IN: Record<string, Record<number, string>> = {
  report: { 404: 'notice.report' },
  invitation: { 404: 'notice.invitation' },
};

function unavailable(kind: string, status: number, locale: Locale): PageContent | undefined {
  const prefix = UNAVAILABLE_IN[kind]?.[status];
  if (!prefix) return undefined;
  const t = translator(locale, 'common');
  return {
    title: t(`${prefix}.title`),
    lang: locale,
    main: notice(t(`${prefix}.heading`), t(`${prefix}.reason`), t(`${prefix}.next`)),
  };
}

/** The language query of the pages that speak several (`?lang=fr`). */
const LangQuery = Type.Object({
  lang: Type.Optional(
    Type.String({
      maxLength: 35,
      description: `The page's language, one of ${LOCALES.join(', ')}; others are ignored.`,
    }),
  ),
});

const send = sendPage;

/**
 * The pages behind the links the service hands out with the default APP_URL: a form for respondents,
 * a shared report for donors, an invitation and a password reset; and the pages of members
 * (member-pages.routes.ts). Server-rendered HTML with every
 * untrusted value escaped; small scripts from ./assets, no framework, no build step.
 */
export const pageRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  // Compressed by the app's one @fastify/compress registration (src/http/pipeline/compression.ts).
  const assets = new Assets();
  const submissions = new SubmissionService(ctx.db, ctx.storage, ctx.fileQuota, ctx.webhooksQueued, {
    clock: ctx.clock,
    notCounted: ctx.notCounted,
  });
  const sharing = new SharingService(ctx.db, ctx.config, ctx.storage, ctx.replica);
  const invitations = new InvitationService(ctx.db, ctx.webhooksQueued);

  /** The page `render` builds, or the one that says why there is none (404, 410 from the service). */
  async function pageOr(
    reply: FastifyReply,
    kind: string,
    render: () => Promise<PageContent>,
    locale: Locale = 'en',
  ) {
    try {
      return await send(reply, assets, await render());
    } catch (err) {
      const instead = err instanceof AppError ? unavailable(kind, err.statusCode, locale) : undefined;
      if (!instead) throw err;
      return send(reply, assets, instead, (err as AppError).statusCode);
    }
  }

  app.get(
    '/assets/:name',
    {
      // Served from memory and cached for good: counting them would only spend the respondents' limit
      // (many people may share one address: a training hall on one phone's connection).
      config: { access: 'public', rateLimitBucket: 'none' },
      schema: {
        // Named by a hash of their content and linked only from the pages: no client could call them.
        hide: true,
        tags,
        summary: "The public pages' stylesheet and scripts",
        description:
          'Names carry a hash of the content, so a file is cached for a year and never changes. Not rate limited.',
        params: Type.Object({ name: Type.String({ maxLength: 200 }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const asset = assets.byName.get(request.params.name);
      if (!asset) throw notFound('Asset');
      return reply
        .headers({ 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' })
        .send(asset.body);
    },
  );

  const formWorker = assets.unversioned('form-worker.js');
  app.get(
    FORM_WORKER_PATH,
    {
      // Fetched by browsers when a form page opens and about once a day after: served from memory.
      config: { access: 'public', rateLimitBucket: 'none' },
      schema: {
        // Registered by the form page itself; not an operation a client calls.
        hide: true,
        tags,
        summary: "The form pages' service worker",
        description:
          'JavaScript the form page registers (scope /f/) so that a form opened once opens again without a ' +
          'connection: the page comes from the network when it answers within 3 s, else from the copy kept ' +
          'at the last visit (a 404 or 410 page drops that copy); scripts and the stylesheet from the copy ' +
          'kept. Nothing else is cached: answers are kept by the page in IndexedDB, each with its own ' +
          'Idempotency-Key, and sent when the connection returns. A fixed address revalidated on each use ' +
          '(no-cache), so a new version reaches browsers at their next visit. Not rate limited.',
        produces: ['text/javascript'],
        response: {
          200: {
            description: 'The service worker',
            content: { 'text/javascript': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) =>
      reply.headers({ 'content-type': formWorker.type, 'cache-control': 'no-cache' }).send(formWorker.body),
  );

  app.get(
    '/f/:token',
    {
      config: page,
      schema: {
        operationId: 'getFormPage',
        tags,
        summary: 'The form page for respondents ({APP_URL}/f/<token>)',
        description:
          'HTML in the form’s language chosen by ?lang=, then Accept-Language (exact tag, then primary ' +
          'subtag), else its default, with links to its other languages and <html lang dir> set (right to ' +
          'left for Arabic and the like). Every field type, groups, repeats (entries added and removed), ' +
          'notes, calculations shown live, relevant and showIf applied as answers change, constraints, ' +
          'numbers in any digits, the same checks as the ' +
          'server before sending, the server’s 400 messages next to their fields, files, the browser’s ' +
          'location or a typed place name, then a thank-you view. 404 page for an unknown or unpublished ' +
          'form, 410 page once it closed.',
        params: TokenParams,
        querystring: Type.Object({
          lang: Type.Optional(
            Type.String({
              maxLength: 35,
              description:
                'The language to show the form in (BCP 47); else Accept-Language, else the form’s default',
            }),
          ),
        }),
        produces,
        response: answers({
          200: 'The form',
          404: 'Unknown or unpublished form',
          410: 'The form is closed',
        }),
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const { lang } = request.query;
      const acceptLanguage = request.headers['accept-language'];
      try {
        let form: PublicFormView = await submissions.publicForm(token);
        const chosen = chooseFormLanguage(form.languages ?? [], lang, acceptLanguage);
        if (chosen !== undefined && chosen !== form.language)
          form = await submissions.publicForm(token, chosen);
        return await send(reply, assets, formPage(form, token));
      } catch (err) {
        const status = err instanceof AppError ? err.statusCode : 0;
        if (status !== 404 && status !== 410) throw err;
        return send(reply, assets, unavailableFormPage(status, pickLocale(lang, acceptLanguage)), status);
      }
    },
  );

  app.get(
    '/r/:token',
    {
      config: page,
      schema: {
        operationId: 'getSharedReportPage',
        tags,
        summary: 'The shared report page for donors ({APP_URL}/r/<token>)',
        description:
          'HTML of GET /reports/share/:token: cover, each indicator as a card (value, target, progress bar ' +
          'coloured by status, its data-quality notes under the value while the organization has ' +
          '`showQualityNotes` on, its disaggregations as small named tables, its crosses as grids), values by ' +
          'period with the indicators named, activities, budget and burn rate, narratives, attachment ' +
          'downloads; a report not published is marked "Draft: figures may change", on screen and in print. ' +
          'Fits a phone without scrolling sideways; prints as a clean document; user text runs in its own ' +
          'direction. 404 page once the link is expired, revoked or unknown. In the language ' +
          'of `?lang=`, else the first of the browser’s (Accept-Language) the pages speak, else the ' +
          'organization’s `defaultLocale`; links offer the other languages.',
        params: TokenParams,
        querystring: LangQuery,
        produces,
        response: answers({ 200: 'The report', 404: 'Expired, revoked or unknown link' }),
      },
    },
    (request, reply) => {
      // ?lang=, then the browser's languages, then the organization's default, then English.
      const asked = matchLocale(request.query.lang, request.headers['accept-language']);
      return pageOr(
        reply,
        'report',
        async () => {
          const report = await sharing.publicReport(request.params.token);
          const locale = asked ?? (await defaultLocaleOf(ctx.db, report.orgId));
          return reportPage(report, locale, (other) => `?lang=${other}`);
        },
        asked ?? 'en',
      );
    },
  );

  app.get(
    '/invitations/:token',
    {
      config: page,
      constraints: { page: 'html' },
      // One path, one entry in the document: the JSON route's description tells of this page.
      schema: { hide: true, params: TokenParams, querystring: LangQuery },
    },
    (request, reply) => {
      const locale = pickLocale(request.query.lang, request.headers['accept-language']);
      return pageOr(
        reply,
        'invitation',
        async () =>
          invitationPage(await invitations.lookup(request.params.token), request.params.token, locale),
        locale,
      );
    },
  );

  app.get(
    '/reset-password',
    {
      config: page,
      schema: {
        operationId: 'getResetPasswordPage',
        tags,
        summary: 'The password reset page ({APP_URL}/reset-password?token=<token>)',
        description:
          'HTML. The token is checked when the page is made (it is not spent): a token that can still be ' +
          'used gets a new password, checked as the API checks it, sent to POST /auth/reset-password, and ' +
          'then a link to the sign-in page; an unknown, used or expired token gets a 404 page saying the ' +
          'link no longer works, before any password is asked for. Without a token, a page saying the link ' +
          'is incomplete.',
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 2048 })),
          ...LangQuery.properties,
        }),
        produces,
        response: answers({
          200: 'The page; without a token, a page saying the link is incomplete',
          404: 'The link is unknown, used or expired',
        }),
      },
    },
    async (request, reply) => {
      const { token } = request.query;
      const locale = pickLocale(request.query.lang, request.headers['accept-language']);
      if (!token) return send(reply, assets, resetPasswordPage('incomplete', locale));
      if (!(await passwordResetUsable(ctx.db, token))) {
        return send(reply, assets, resetPasswordPage('unusable', locale), 404);
      }
      return send(reply, assets, resetPasswordPage('usable', locale));
    },
  );

  app.get(
    '/verify-email',
    {
      config: page,
      schema: {
        operationId: 'getVerifyEmailPage',
        tags,
        summary: 'The email verification page ({APP_URL}/verify-email?token=<token>)',
        description:
          'HTML: a button that sends the token to POST /auth/verify-email, then says the address is ' +
          'confirmed or shows the refusal. Nothing is sent until the button is pressed, so a mail scanner ' +
          'opening the link proves nothing. Whether the token is valid is known only when it is used. ' +
          'Once confirmed, the page links to the settings page (through the sign-in page when signed out).',
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 2048 })),
          ...LangQuery.properties,
        }),
        produces,
        response: answers({ 200: 'The page; without a token, a page saying the link is incomplete' }),
      },
    },
    (request, reply) =>
      send(
        reply,
        assets,
        verifyEmailPage(
          Boolean(request.query.token),
          pickLocale(request.query.lang, request.headers['accept-language']),
        ),
      ),
  );

  // In a scope of their own: their refusals become pages (a sign-in redirect, 403 and 404 pages).
  await app.register(memberPageRoutes, { ...ctx, assets });
};
