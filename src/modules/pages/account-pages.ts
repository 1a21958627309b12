import { clientMessages, translator, type Locale } from '../../lib/i18n/i18n.js';
import { html, type Html } from './html.js';
import { markup, moment, notice, type PageContent } from './layout.js';
import { AFTER_SIGN_IN } from './next-path.js';

export interface InvitationView {
  organizationName: string;
  email: string;
  role: string;
  expiresAt: Date | string;
}

export const ROLE_NAMES: Record<string, string> = {
  org_admin: 'administrator',
  me_officer: 'M&E officer',
  reporter: 'reporter',
  viewer: 'viewer',
};
const NEW_PASSWORD = {
  type: 'password',
  limits: html`minlength="8" maxlength="128"`,
};

/** What every account page shares: its language, strings, and the strings of account.js. */
function speak(locale: Locale) {
  const t = translator(locale, 'account');
  return {
    t,
    page: { lang: locale, messages: clientMessages(locale, 'account', 'script.') },
    newPassword: { ...NEW_PASSWORD, hint: t('newPasswordHint') },
  };
}

interface Input {
  id: string;
  label: string;
  autocomplete: string;
  type?: string;
  value?: string;
  /** Length attributes, as the API's schema has them. */
  limits?: Html;
  hint?: string;
}

/** A labelled, required input with its hint and the place for its error, as account.js expects. */
const field = ({ id, label, autocomplete, type = 'text', value = '', limits, hint }: Input) =>
  html`<div class="field" data-key="${id}">
    <label for="${id}">${label}</label>
    ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : null}
    <p class="error" id="${id}-error" data-error></p>
    <input type="${type}" id="${id}" name="${id}" autocomplete="${autocomplete}" value="${value}" required
      ${limits ?? html`maxlength="100"`} aria-describedby="${hint ? `${id}-hint ` : ''}${id}-error" />
  </div>`;

/**
 * An invitation: who invites, as what. account.js then signs the person in (or creates their account)
 * through the API and accepts, so the organization's data is never in this page.
 */
export function invitationPage(
  invitation: InvitationView,
  token: string,
  locale: Locale = 'en',
): PageContent {
  const { t, page, newPassword } = speak(locale);
  const role = t(`role.${invitation.role}`);
  const org = invitation.organizationName;
  const signedInAs = html`<strong data-signed-in-as></strong>`;
  return {
    ...page,
    title: t('invitation.title', { org }),
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account" data-invitation="${token}" data-email="${invitation.email}" data-role-name="${role}">
      <h1>${t('invitation.heading', { org })}</h1>
      <p class="lead">
        ${markup(t, 'invitation.lead', { role, email: html`<strong>${invitation.email}</strong>` })}
      </p>
      <p class="hint">
        ${markup(t, 'invitation.validUntil', { time: moment(invitation.expiresAt, locale) })}
      </p>
      <noscript><p class="error">${t('invitation.needsScript')}</p></noscript>
      <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
      <div data-step="checking">
        <p class="hint" aria-live="polite">${t('invitation.checking')}</p>
      </div>
      <div data-step="accept" hidden>
        <p>${markup(t, 'invitation.signedInAs', { email: signedInAs })}</p>
        <button type="button" data-accept>${t('invitation.accept')}</button>
      </div>
      <div data-step="other-account" hidden>
        <p>${markup(t, 'invitation.otherAccount', { email: signedInAs, invited: invitation.email })}</p>
        <button type="button" class="secondary" data-sign-out>${t('invitation.signOut')}</button>
      </div>
      <form data-step="sign-in" hidden novalidate>
        <h2>${t('invitation.signInHeading')}</h2>
        ${field({ id: 'email', label: t('field.email'), autocomplete: 'username', type: 'email', value: invitation.email, limits: html`maxlength="254"` })}
        ${field({ id: 'password', label: t('field.password'), autocomplete: 'current-password', type: 'password', limits: html`maxlength="1024"` })}
        <button type="submit">${t('signIn')}</button>
        <p>${t('invitation.noAccount')} <button type="button" class="link" data-show="register">${t('invitation.createOne')}</button></p>
      </form>
      <form data-step="register" hidden novalidate>
        <h2>${t('invitation.registerHeading')}</h2>
        <p>${t('invitation.accountWillUse', { email: invitation.email })}</p>
        ${field({ id: 'firstName', label: t('field.firstName'), autocomplete: 'given-name' })}
        ${field({ id: 'lastName', label: t('field.lastName'), autocomplete: 'family-name' })}
        ${field({ id: 'newPassword', label: t('field.choosePassword'), autocomplete: 'new-password', ...newPassword })}
        <button type="submit">${t('invitation.createAccount')}</button>
        <p>
          ${t('invitation.haveAccount')} <button type="button" class="link" data-show="sign-in">${t('signIn')}</button>
        </p>
      </form>
      <div data-step="done" hidden tabindex="-1">
        <h2>${t('invitation.welcome')}</h2>
        <p data-done-message></p>
        <p>${t('invitation.links')}</p>
        <p><a class="button" href="${AFTER_SIGN_IN}">${t('goToSettings')}</a></p>
      </div>
    </section>`,
  };
}

/** Whether a reset link can still set a password: checked when the page is made, before it asks for one. */
export type ResetLink = 'incomplete' | 'unusable' | 'usable';

/** Setting a new password with the link from the email; the token goes to the API, never elsewhere. */
export function resetPasswordPage(link: ResetLink, locale: Locale = 'en'): PageContent {
  const { t, page, newPassword } = speak(locale);
  if (link === 'incomplete') {
    return {
      ...page,
      title: t('reset.title'),
      main: notice(t('incomplete.heading'), t('reset.incomplete')),
    };
  }
  if (link === 'unusable') {
    return {
      ...page,
      title: t('reset.title'),
      main: html`<section class="notice">
        <h1>${t('reset.unusable.heading')}</h1>
        <p>${t('reset.unusable.text')}</p>
        <p><a class="button" href="/sign-in">${t('reset.unusable.action')}</a></p>
      </section>`,
    };
  }
  return {
    ...page,
    title: t('reset.title'),
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account">
      <form data-reset novalidate>
        <h1>${t('reset.heading')}</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${field({ id: 'newPassword', label: t('field.newPassword'), autocomplete: 'new-password', ...newPassword })}
        ${field({ id: 'confirmPassword', label: t('field.confirmPassword'), autocomplete: 'new-password', type: 'password', limits: NEW_PASSWORD.limits })}
        <noscript><p class="error">${t('reset.needsScript')}</p></noscript>
        <button type="submit" disabled data-ready>${t('reset.submit')}</button>
      </form>
      <div data-step="done" hidden tabindex="-1">
        <h1>${t('reset.done.heading')}</h1>
        <p>${t('reset.done.text')}</p>
        <p><a class="button" href="/sign-in">${t('reset.done.action')}</a></p>
      </div>
    </section>`,
  };
}

/**
 * Proving the address with the link from the verification email. The token is posted only when the
 * person presses the button: mail scanners that open links (and some run their scripts) do not.
 */
export function verifyEmailPage(hasToken: boolean, locale: Locale = 'en'): PageContent {
  const { t, page } = speak(locale);
  if (!hasToken) {
    return {
      ...page,
      title: t('verify.title'),
      main: html`<section class="notice">
        <h1>${t('incomplete.heading')}</h1>
        <p>${t('verify.incomplete')}</p>
      </section>`,
    };
  }
  return {
    ...page,
    title: t('verify.title'),
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account" data-verify-email>
      <div data-step="confirm">
        <h1>${t('verify.title')}</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        <p>${t('verify.text')}</p>
        <noscript><p class="error">${t('verify.needsScript')}</p></noscript>
        <button type="button" disabled data-ready data-confirm>${t('verify.submit')}</button>
      </div>
      <div data-step="done" hidden tabindex="-1">
        <h1>${t('verify.done.heading')}</h1>
        <p>${t('verify.done.text')}</p>
        <p><a class="button" href="${AFTER_SIGN_IN}">${t('goToSettings')}</a></p>
      </div>
    </section>`,
  };
}

/**
 * Signing in, then on to `next` (a path of this service, already checked). account.js sends the
 * address and password to POST /auth/login, which sets the session cookie. With `externalSignIn`, a
 * link to the identity provider's sign-in too.
 */
export function signInPage(next: string, externalSignIn: string | null, locale: Locale = 'en'): PageContent {
  const { t, page } = speak(locale);
  return {
    ...page,
    title: t('signIn'),
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account">
      <form data-sign-in data-next="${next}" novalidate>
        <h1>${t('signIn')}</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${field({ id: 'email', label: t('field.email'), autocomplete: 'username', type: 'email', limits: html`maxlength="254"` })}
        ${field({ id: 'password', label: t('field.password'), autocomplete: 'current-password', type: 'password', limits: html`maxlength="1024"` })}
        <noscript><p class="error">${t('signIn.needsScript')}</p></noscript>
        <button type="submit" disabled data-ready>${t('signIn')}</button>
      </form>
      <p>
        ${t('signIn.forgot')}
        <button type="button" class="link" data-forgot disabled data-ready>${t('signIn.emailLink')}</button>
      </p>
      <p class="hint" data-forgot-sent aria-live="polite"></p>
      ${
        externalSignIn
          ? html`<p><a class="button" href="${externalSignIn}">${t('signIn.external')}</a></p>`
          : null
      }
      <p class="hint">${t('signIn.accounts')}</p>
    </section>`,
  };
}
