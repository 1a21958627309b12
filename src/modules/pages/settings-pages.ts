import type { Membership } from '../../http/pipeline/access.js';
import { html } from './html.js';
import { moment, type PageContent } from './layout.js';
import { ROLE_NAMES } from './account-pages.js';

export const webhooksPagePath = (orgId: string) => `/orgs/${orgId}/settings/webhooks`;

/** The signed-in user's own settings: deadline reminders on or off, their organizations, signing out. */
export function settingsPage(
  user: { email: string; firstName: string; lastName: string; remindersEnabled: boolean },
  memberships: readonly Membership[],
): PageContent {
  return {
    title: 'Your settings',
    signedInAs: user.email,
    scripts: ['common.js', 'member.js'],
    main: html`<h1>Your settings</h1>
      <p class="lead">${user.firstName} ${user.lastName}, ${user.email}</p>
      <form data-reminders novalidate>
        <h2>Email reminders</h2>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        <div class="choice">
          <input type="checkbox" id="reminders" name="reminders" ${user.remindersEnabled ? html`checked` : null}
            aria-describedby="reminders-hint" />
          <label for="reminders">Email me when indicator reports are due or overdue</label>
        </div>
        <p class="hint" id="reminders-hint">
          Reminders go to reporters assigned to a project and to M&amp;E officers, in every organization you
          belong to. Turning them off stops them for all of your organizations.
        </p>
        <button type="submit" disabled data-ready>Save</button>
        <p class="hint" data-saved aria-live="polite"></p>
      </form>
      <h2>Your organizations</h2>
      ${
        memberships.length === 0
          ? html`<p>You are not a member of any organization yet: an administrator of yours can invite you.</p>`
          : html`<ul class="organizations">
            ${memberships.map(
              ({ organization, role }) => html`<li>
                <strong>${organization.name}</strong>, as ${ROLE_NAMES[role] ?? role}
                ${
                  role === 'org_admin'
                    ? html`· <a href="${webhooksPagePath(organization.id)}">Webhooks</a>`
                    : null
                }
              </li>`,
            )}
          </ul>`
      }
      <h2>Signing out</h2>
      <p><button type="button" class="secondary" disabled data-ready data-sign-out>Sign out</button></p>`,
  };
}

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  active: boolean;
  disabledReason: 'failing' | null;
  disabledAt: Date | string | null;
  failingSince: Date | string | null;
}

/** An endpoint's state in words: sending, failing, or off and why. */
function state(endpoint: Endpoint) {
  if (endpoint.active) {
    return endpoint.failingSince
      ? html`Active, but every delivery has failed since ${moment(endpoint.failingSince)}; it is turned off
          after 5 days of failures.`
      : html`Active: events are sent to it.`;
  }
  const since = endpoint.disabledAt ? html` on ${moment(endpoint.disabledAt)}` : null;
  return endpoint.disabledReason === 'failing'
    ? html`Turned off by the service${since}, because every delivery had failed for 5 days.`
    : html`Turned off by an administrator${since}.`;
}

/** An organization's webhook endpoints for its admins: where events go, their state, turning one back on. */
export function webhooksPage(
  organization: { id: string; name: string },
  endpoints: readonly Endpoint[],
  signedInAs: string,
): PageContent {
  return {
    title: `Webhooks of ${organization.name}`,
    signedInAs,
    scripts: endpoints.some((endpoint) => !endpoint.active) ? ['common.js', 'member.js'] : [],
    main: html`<h1>Webhooks of ${organization.name}</h1>
      <p class="lead">
        The addresses the organization's events are sent to, signed as Standard Webhooks. Endpoints are
        added and changed through the API (/orgs/${organization.id}/webhooks).
      </p>
      ${
        endpoints.length === 0
          ? html`<p>No webhook endpoint yet.</p>`
          : html`<ul class="endpoints">
            ${endpoints.map(
              (endpoint) => html`<li data-endpoint="${endpoint.id}"
                data-api="/orgs/${organization.id}/webhooks/${endpoint.id}">
                <h2 class="url">${endpoint.url}</h2>
                ${endpoint.description ? html`<p>${endpoint.description}</p>` : null}
                <p class="hint">Events: ${endpoint.events.join(', ')}</p>
                <p class="state ${endpoint.active ? 'on' : 'off'}" data-state>${state(endpoint)}</p>
                <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
                ${
                  endpoint.active
                    ? null
                    : html`<button type="button" disabled data-ready data-turn-on>Turn back on</button>`
                }
              </li>`,
            )}
          </ul>`
      }`,
  };
}
