import { html, type Html } from './html.js';
import { moment, notice, type PageContent } from './layout.js';
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
  hint: '8 to 128 characters, not your email address.',
};

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
export function invitationPage(invitation: InvitationView, token: string): PageContent {
  const role = ROLE_NAMES[invitation.role] ?? invitation.role;
  return {
    title: `Invitation to ${invitation.organizationName}`,
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account" data-invitation="${token}" data-email="${invitation.email}" data-role-name="${role}">
      <h1>Join ${invitation.organizationName}</h1>
      <p class="lead">
        You are invited as ${role}, with the email address <strong>${invitation.email}</strong>.
      </p>
      <p class="hint">
        This invitation is valid until
        ${moment(invitation.expiresAt)}.
      </p>
      <noscript><p class="error">Accepting needs JavaScript.</p></noscript>
      <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
      <div data-step="checking">
        <p class="hint" aria-live="polite">Checking whether you are signed in…</p>
      </div>
      <div data-step="accept" hidden>
        <p>You are signed in as <strong data-signed-in-as></strong>.</p>
        <button type="button" data-accept>Accept the invitation</button>
      </div>
      <div data-step="other-account" hidden>
        <p>
          You are signed in as <strong data-signed-in-as></strong>, but this invitation is for
          ${invitation.email}.
        </p>
        <button type="button" class="secondary" data-sign-out>Sign out</button>
      </div>
      <form data-step="sign-in" hidden novalidate>
        <h2>Sign in to accept</h2>
        ${field({ id: 'email', label: 'Email address', autocomplete: 'username', type: 'email', value: invitation.email, limits: html`maxlength="254"` })}
        ${field({ id: 'password', label: 'Password', autocomplete: 'current-password', type: 'password', limits: html`maxlength="1024"` })}
        <button type="submit">Sign in</button>
        <p>No account yet? <button type="button" class="link" data-show="register">Create one</button></p>
      </form>
      <form data-step="register" hidden novalidate>
        <h2>Create your account</h2>
        <p>Your account will use ${invitation.email}.</p>
        ${field({ id: 'firstName', label: 'First name', autocomplete: 'given-name' })}
        ${field({ id: 'lastName', label: 'Last name', autocomplete: 'family-name' })}
        ${field({ id: 'newPassword', label: 'Choose a password', autocomplete: 'new-password', ...NEW_PASSWORD })}
        <button type="submit">Create account</button>
        <p>
          Already have an account? <button type="button" class="link" data-show="sign-in">Sign in</button>
        </p>
      </form>
      <div data-step="done" hidden tabindex="-1">
        <h2>Welcome</h2>
        <p data-done-message></p>
        <p>
          Links in the emails the service sends you (reporting deadlines, returned reports) now open your
          organization's pages.
        </p>
        <p><a class="button" href="${AFTER_SIGN_IN}">Go to your settings</a></p>
      </div>
    </section>`,
  };
}

/** Whether a reset link can still set a password: checked when the page is made, before it asks for one. */
export type ResetLink = 'incomplete' | 'unusable' | 'usable';

/** Setting a new password with the link from the email; the token goes to the API, never elsewhere. */
export function resetPasswordPage(link: ResetLink): PageContent {
  if (link === 'incomplete') {
    return {
      title: 'Reset your password',
      main: notice(
        'This link is incomplete',
        'Open the link from the password reset email again, or ask for a new one.',
      ),
    };
  }
  if (link === 'unusable') {
    return {
      title: 'Reset your password',
      main: html`<section class="notice">
        <h1>This link no longer works</h1>
        <p>
          A password reset link works once and for a limited time, and setting a password ends the other
          links sent before: this one was already used, has expired, or is mistyped.
        </p>
        <p><a class="button" href="/sign-in">Sign in, or ask for a new link</a></p>
      </section>`,
    };
  }
  return {
    title: 'Reset your password',
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account">
      <form data-reset novalidate>
        <h1>Choose a new password</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${field({ id: 'newPassword', label: 'New password', autocomplete: 'new-password', ...NEW_PASSWORD })}
        ${field({ id: 'confirmPassword', label: 'Type it again', autocomplete: 'new-password', type: 'password', limits: NEW_PASSWORD.limits })}
        <noscript><p class="error">Setting a password needs JavaScript.</p></noscript>
        <button type="submit" disabled data-ready>Set password</button>
      </form>
      <div data-step="done" hidden tabindex="-1">
        <h1>Password changed</h1>
        <p>Your new password works from now on; every earlier sign-in has ended.</p>
        <p><a class="button" href="/sign-in">Sign in with your new password</a></p>
      </div>
    </section>`,
  };
}

/**
 * Proving the address with the link from the verification email. The token is posted only when the
 * person presses the button: mail scanners that open links (and some run their scripts) do not.
 */
export function verifyEmailPage(hasToken: boolean): PageContent {
  if (!hasToken) {
    return {
      title: 'Confirm your email address',
      main: html`<section class="notice">
        <h1>This link is incomplete</h1>
        <p>Open the link from the verification email again, or ask for a new one after signing in.</p>
      </section>`,
    };
  }
  return {
    title: 'Confirm your email address',
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account" data-verify-email>
      <div data-step="confirm">
        <h1>Confirm your email address</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        <p>Press the button to confirm that this email address is yours.</p>
        <noscript><p class="error">Confirming needs JavaScript.</p></noscript>
        <button type="button" disabled data-ready data-confirm>Confirm my email address</button>
      </div>
      <div data-step="done" hidden tabindex="-1">
        <h1>Email address confirmed</h1>
        <p>Thank you. Your account and its organizations are on your settings page.</p>
        <p><a class="button" href="${AFTER_SIGN_IN}">Go to your settings</a></p>
      </div>
    </section>`,
  };
}

/**
 * Signing in, then on to `next` (a path of this service, already checked). account.js sends the
 * address and password to POST /auth/login, which sets the session cookie. With `externalSignIn`, a
 * link to the identity provider's sign-in too.
 */
export function signInPage(next: string, externalSignIn: string | null): PageContent {
  return {
    title: 'Sign in',
    scripts: ['common.js', 'account.js'],
    main: html`<section class="account">
      <form data-sign-in data-next="${next}" novalidate>
        <h1>Sign in</h1>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${field({ id: 'email', label: 'Email address', autocomplete: 'username', type: 'email', limits: html`maxlength="254"` })}
        ${field({ id: 'password', label: 'Password', autocomplete: 'current-password', type: 'password', limits: html`maxlength="1024"` })}
        <noscript><p class="error">Signing in needs JavaScript.</p></noscript>
        <button type="submit" disabled data-ready>Sign in</button>
      </form>
      <p>
        Forgot your password?
        <button type="button" class="link" data-forgot disabled data-ready>Email me a reset link</button>
      </p>
      <p class="hint" data-forgot-sent aria-live="polite"></p>
      ${
        externalSignIn
          ? html`<p><a class="button" href="${externalSignIn}">Sign in with your organization’s account</a></p>`
          : null
      }
      <p class="hint">
        Accounts come with an invitation from an administrator of your organization: open the link in its
        email to create yours.
      </p>
    </section>`,
  };
}
