import { html, type Html } from './html.js';
import { moment, type PageContent } from './layout.js';

export interface InvitationView {
  organizationName: string;
  email: string;
  role: string;
  expiresAt: Date | string;
}

const ROLE_NAMES: Record<string, string> = {
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
      </div>
    </section>`,
  };
}

/** Setting a new password with the link from the email; the token goes to the API, never elsewhere. */
export function resetPasswordPage(hasToken: boolean): PageContent {
  if (!hasToken) {
    return {
      title: 'Reset your password',
      main: html`<section class="notice">
        <h1>This link is incomplete</h1>
        <p>Open the link from the password reset email again, or ask for a new one.</p>
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
        <p>Thank you. You can close this page.</p>
      </div>
    </section>`,
  };
}
