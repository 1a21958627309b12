import { html } from './html.js';
import { notice, type PageContent } from './layout.js';
import { AFTER_SIGN_IN, signInFor } from './next-path.js';

/** A signed-in user whom the API would refuse: who they are, and how to get in. */
export function forbiddenPage(email: string | null, path: string): PageContent {
  return {
    title: 'No access',
    ...(email ? { signedInAs: email } : {}),
    scripts: ['common.js', 'member.js'],
    main: html`<section class="notice">
      <h1>You do not have access to this page</h1>
      <p>
        ${email ? html`You are signed in as <strong>${email}</strong>. ` : null}Your role in the organization
        does not allow it, or the project is not assigned to you.
      </p>
      <p>Ask an administrator of the organization for access, or sign in with another account.</p>
      <p>
        <button type="button" class="secondary" disabled data-ready data-sign-out data-next="${signInFor(path)}">
          Sign in with another account
        </button>
      </p>
    </section>`,
  };
}

/** An unknown or malformed id, or one of an organization the user is not in: nothing to tell apart. */
export function notFoundPage(email: string | null): PageContent {
  return {
    title: 'Page not found',
    ...(email ? { signedInAs: email } : {}),
    main: html`<section class="notice">
      <h1>This page does not exist</h1>
      <p>
        The link may be mistyped, what it pointed to may have been deleted, or it belongs to an
        organization you are not a member of${email ? html` as <strong>${email}</strong>` : null}.
      </p>
      <p><a href="${AFTER_SIGN_IN}">Go to your settings</a></p>
    </section>`,
  };
}

/** What the service could not do just now (too many requests, the database away), as a page. */
export function troublePage(status: number): PageContent {
  if (status === 429) {
    return {
      title: 'Too many requests',
      main: notice(
        'Too many requests just now',
        'Your network sent more requests than the service takes in a minute. Wait a minute, then reload the page.',
      ),
    };
  }
  return {
    title: 'Not available',
    main: notice(
      'The service cannot show this page just now',
      `It answered with status ${status}. Reload the page in a few seconds; if it keeps happening, tell the service's administrators.`,
    ),
  };
}
