import { html } from './html.js';
import type { PageContent } from './layout.js';

/** What a failed sign-in through the identity provider means to the person, by the code it ends with. */
const FAILURES: Record<string, string> = {
  access_denied: 'The sign-in was cancelled at your organization’s identity provider.',
  invalid_state:
    'The sign-in took too long, or was started in another window or browser. Start it again from here.',
  email_not_verified:
    'Your identity provider has not confirmed your email address. Confirm it there, then sign in again.',
  provider_unavailable:
    'Your organization’s identity provider could not be reached. Try again in a few minutes.',
};

/**
 * Where the identity provider's sign-in ends ({FRONTEND_URL}/auth/callback) when that is this service:
 * why it failed and how to try again. A sign-in that worked is sent on to the settings page instead.
 */
export function externalSignInPage(error: string | undefined): PageContent {
  // Only a known code is explained, and an unknown one shown only when it looks like a code: the query
  // is anyone's to write, and this page is on the service's own origin.
  const known = error !== undefined && Object.hasOwn(FAILURES, error) ? FAILURES[error] : undefined;
  const reason =
    known ??
    (error && /^[a-z0-9_.-]{1,64}$/.test(error)
      ? `The identity provider refused the sign-in (${error}). Try again, or ask your administrator.`
      : 'The sign-in did not complete: no session was started. Try again.');
  return {
    title: 'Sign-in not completed',
    main: html`<section class="notice">
      <h1>You are not signed in</h1>
      <p>${reason}</p>
      <p><a class="button" href="/sign-in">Back to the sign-in page</a></p>
    </section>`,
  };
}
