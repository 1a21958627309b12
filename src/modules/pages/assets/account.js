// The sign-in page, the invitation page (sign in or create the account, then accept), the password reset
// page and the email verification page, all through the API. Field names of the API map to the page's fields for its messages.
'use strict';
(() => {
  const { api, messagesOf, clearProblems, showProblems, problemsFrom } = window.melPages;
  const PASSWORD_RULES = { min: 8, max: 128 };

  // The page's strings in its language: a JSON data block the page embeds (never executed, so the page
  // policy needs no inline script), English as written here when a string is missing.
  const messageBlock = document.getElementById('messages');
  const MESSAGES = messageBlock ? JSON.parse(messageBlock.textContent) : {};
  const plurals = new Intl.PluralRules(document.documentElement.lang || 'en');
  /** The string `key` with its `{{variables}}`; with a count, the plural form the language uses. */
  function say(key, fallback, vars = {}) {
    const text =
      (vars.count !== undefined && MESSAGES[`script.${key}_${plurals.select(vars.count)}`]) ||
      MESSAGES[`script.${key}`] ||
      fallback;
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
  }
  /** A field's label as the page shows it (for the API's messages about it). */
  const labelOf = (key, fallback) =>
    document.querySelector(`label[for="${key}"]`)?.textContent.trim() || fallback;

  /** The checks the API makes on a new password that a page can make: length, and not the email. */
  function passwordProblems(password, email) {
    const label = say('passwordLabel', 'Password');
    if (password.length < PASSWORD_RULES.min)
      return [
        say('tooShort', '{{label}} must be at least {{count}} characters', {
          label,
          count: PASSWORD_RULES.min,
        }),
      ];
    if (password.length > PASSWORD_RULES.max)
      return [
        say('tooLong', '{{label}} must be at most {{count}} characters', {
          label,
          count: PASSWORD_RULES.max,
        }),
      ];
    if (email && password.trim().toLowerCase() === email.toLowerCase())
      return [say('sameAsEmail', '{{label}} must not be the same as the email', { label })];
    return [];
  }

  /** Required inputs left blank, as problems of their fields. */
  function blanks(form) {
    return [...form.querySelectorAll('input[required]')]
      .filter((input) => input.value.trim() === '')
      .map((input) => ({
        key: input.closest('.field').dataset.key,
        message: say('required', '{{label}} is required', { label: input.labels[0].textContent.trim() }),
      }));
  }

  /** A form with a new password (#newPassword): its blanks, then what the API would say of the password. */
  function newPasswordProblems(form, email) {
    const password = form.elements.newPassword.value;
    const rules = password === '' ? [] : passwordProblems(password, email);
    return [...blanks(form), ...rules.map((message) => ({ key: 'newPassword', message }))];
  }

  async function busy(form, work) {
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      return await work();
    } finally {
      button.disabled = false;
    }
  }

  const invitation = document.querySelector('[data-invitation]');
  if (invitation) {
    const token = invitation.dataset.invitation;
    const invited = invitation.dataset.email;
    const steps = [...invitation.querySelectorAll('[data-step]')];
    const show = (name) => {
      for (const step of steps) step.hidden = step.dataset.step !== name;
      const shown = steps.find((step) => step.dataset.step === name);
      const focus = shown.querySelector('input, button');
      if (name === 'done') shown.focus();
      else if (focus && name !== 'checking') focus.focus();
    };
    const problem = (messages, fields = {}) => showProblems(invitation, problemsFrom(messages, fields));

    async function start() {
      const me = await api('GET', '/auth/me');
      if (me.status !== 200) return show('sign-in');
      for (const name of invitation.querySelectorAll('[data-signed-in-as]')) name.textContent = me.body.email;
      return show(me.body.email.toLowerCase() === invited.toLowerCase() ? 'accept' : 'other-account');
    }

    invitation.querySelector('[data-accept]').addEventListener('click', async () => {
      clearProblems(invitation);
      const accepted = await api('POST', `/invitations/${encodeURIComponent(token)}/accept`);
      if (accepted.status !== 200) {
        return problem(
          accepted.status === 404
            ? [say('invitationGone', 'This invitation is no longer valid.')]
            : messagesOf(accepted),
        );
      }
      const { organization } = accepted.body;
      // Make the new organization the session's current one, as a member would expect after joining.
      const switched = await api('POST', '/auth/token', { organizationId: organization.id });
      invitation.querySelector('[data-done-message]').textContent =
        say('member', 'You are now a member of {{org}} as {{role}}.', {
          org: organization.name,
          role: invitation.dataset.roleName,
        }) + (switched.status === 200 ? '' : ` ${say('signInAgain', 'Sign in again to work in it.')}`);
      return show('done');
    });

    invitation.querySelector('[data-sign-out]').addEventListener('click', async () => {
      await api('POST', '/auth/logout');
      show('sign-in');
    });

    for (const link of invitation.querySelectorAll('[data-show]')) {
      link.addEventListener('click', () => {
        clearProblems(invitation);
        show(link.dataset.show);
      });
    }

    const signIn = invitation.querySelector('form[data-step="sign-in"]');
    signIn.addEventListener('submit', (event) => {
      event.preventDefault();
      const missing = blanks(signIn);
      if (missing.length > 0) return showProblems(invitation, missing);
      return busy(signIn, async () => {
        const result = await api('POST', '/auth/login', {
          email: signIn.elements.email.value.trim(),
          password: signIn.elements.password.value,
        });
        if (result.status !== 200) {
          return problem(messagesOf(result), {
            email: { key: 'email', label: labelOf('email', 'Email address') },
            password: { key: 'password', label: labelOf('password', 'Password') },
          });
        }
        clearProblems(invitation);
        return start();
      });
    });

    const register = invitation.querySelector('form[data-step="register"]');
    register.addEventListener('submit', (event) => {
      event.preventDefault();
      const password = register.elements.newPassword.value;
      const found = newPasswordProblems(register, invited);
      if (found.length > 0) return showProblems(invitation, found);
      return busy(register, async () => {
        const result = await api('POST', '/auth/register', {
          email: invited,
          password,
          firstName: register.elements.firstName.value.trim(),
          lastName: register.elements.lastName.value.trim(),
        });
        if (result.status === 409) {
          show('sign-in');
          return problem([
            say('accountExists', 'An account with this email address already exists: sign in to accept.'),
          ]);
        }
        if (result.status !== 201) {
          return problem(messagesOf(result), {
            firstName: { key: 'firstName', label: labelOf('firstName', 'First name') },
            lastName: { key: 'lastName', label: labelOf('lastName', 'Last name') },
            password: { key: 'newPassword', label: say('passwordLabel', 'Password') },
          });
        }
        clearProblems(invitation);
        return start();
      });
    });

    void start();
  }

  const signIn = document.querySelector('form[data-sign-in]');
  if (signIn) {
    const section = signIn.closest('.account');
    const fields = {
      email: { key: 'email', label: labelOf('email', 'Email address') },
      password: { key: 'password', label: labelOf('password', 'Password') },
    };
    signIn.addEventListener('submit', (event) => {
      event.preventDefault();
      const missing = blanks(signIn);
      if (missing.length > 0) return showProblems(signIn, missing);
      return busy(signIn, async () => {
        const result = await api('POST', '/auth/login', {
          email: signIn.elements.email.value.trim(),
          password: signIn.elements.password.value,
        });
        if (result.status !== 200) return showProblems(signIn, problemsFrom(messagesOf(result), fields));
        // The session cookie is set: on to the page the link pointed to (a path of this service).
        window.location.assign(signIn.dataset.next);
        return undefined;
      });
    });
    const forgot = section.querySelector('[data-forgot]');
    forgot.addEventListener('click', async () => {
      clearProblems(signIn);
      const email = signIn.elements.email.value.trim();
      if (email === '') {
        return showProblems(signIn, [
          {
            key: 'email',
            message: say('emailFirst', 'Type your email address first, then ask for the link'),
          },
        ]);
      }
      forgot.disabled = true;
      const result = await api('POST', '/auth/forgot-password', { email });
      forgot.disabled = false;
      if (result.status !== 202) return showProblems(signIn, problemsFrom(messagesOf(result), fields));
      section.querySelector('[data-forgot-sent]').textContent = `${result.body.message}.`;
      return undefined;
    });
    // Disabled until now: without this script the browser would put the password in the URL.
    for (const ready of section.querySelectorAll('[data-ready]')) ready.disabled = false;
  }

  const reset = document.querySelector('form[data-reset]');
  if (reset) {
    const token = new URLSearchParams(window.location.search).get('token');
    const section = reset.closest('.account');
    reset.addEventListener('submit', (event) => {
      event.preventDefault();
      const password = reset.elements.newPassword.value;
      const found = newPasswordProblems(reset);
      if (reset.elements.confirmPassword.value !== '' && reset.elements.confirmPassword.value !== password) {
        found.push({ key: 'confirmPassword', message: say('notSame', 'The two passwords are not the same') });
      }
      if (found.length > 0) return showProblems(reset, found);
      return busy(reset, async () => {
        const result = await api('POST', '/auth/reset-password', { token, password });
        if (result.status !== 204) {
          return showProblems(
            reset,
            problemsFrom(messagesOf(result), {
              password: { key: 'newPassword', label: say('passwordLabel', 'Password') },
            }),
          );
        }
        reset.hidden = true;
        const done = section.querySelector('[data-step="done"]');
        done.hidden = false;
        done.focus();
        return undefined;
      });
    });
    // Disabled until now: without this script the browser would put the password in the URL.
    reset.querySelector('button[type="submit"]').disabled = false;
  }

  const verification = document.querySelector('[data-verify-email]');
  if (verification) {
    const token = new URLSearchParams(window.location.search).get('token');
    const confirm = verification.querySelector('[data-confirm]');
    confirm.addEventListener('click', async () => {
      clearProblems(verification);
      confirm.disabled = true;
      const result = await api('POST', '/auth/verify-email', { token });
      confirm.disabled = false;
      if (result.status !== 204) return showProblems(verification, problemsFrom(messagesOf(result), {}));
      verification.querySelector('[data-step="confirm"]').hidden = true;
      const done = verification.querySelector('[data-step="done"]');
      done.hidden = false;
      done.focus();
      return undefined;
    });
    confirm.disabled = false;
  }
})();
