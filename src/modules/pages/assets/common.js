// Shared by the form, invitation and password pages: calls to the API and showing problems.
// Messages are put in with textContent only: what the server or the respondent wrote never becomes markup.
'use strict';
window.melPages = (() => {
  /**
   * The page's strings for its scripts, when it has them: `{ locale, <namespace>: { key: text } }` in a
   * `<script type="application/json" id="messages">` block (data, never run). Plural keys end in
   * `_one`, `_other`, ... as the locale needs (Intl.PluralRules picks one).
   */
  const embedded = (() => {
    const block = document.getElementById('messages');
    try {
      return block ? JSON.parse(block.textContent) : {};
    } catch {
      return {};
    }
  })();
  const locale = typeof embedded.locale === 'string' ? embedded.locale : 'en';
  const plurals = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const lookup = (key) => {
    for (const catalogue of Object.values(embedded))
      if (catalogue && typeof catalogue === 'object' && Object.hasOwn(catalogue, key)) return catalogue[key];
    return undefined;
  };

  /**
   * The string `key` of the page's catalogues with `{{name}}` filled in from `vars` (a `count` picks the
   * plural form and is written as the locale writes numbers); `english` where the page has no such
   * string (a page without catalogues).
   */
  function say(key, vars = {}, english = key) {
    const count = typeof vars.count === 'number' ? vars.count : undefined;
    const text =
      (count === undefined
        ? undefined
        : (lookup(`${key}_${plurals.select(count)}`) ?? lookup(`${key}_other`))) ??
      lookup(key) ??
      english;
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name) => {
      if (!Object.hasOwn(vars, name)) return whole;
      return name === 'count' ? numbers.format(vars.count) : String(vars[name]);
    });
  }

  /**
   * One call to this service's API: `{ status, body, headers }`; status 0 when the network failed (or
   * `signal` aborted it).
   */
  async function api(method, path, body, { headers = {}, signal } = {}) {
    const options = {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...headers },
      signal,
    };
    if (body instanceof FormData) options.body = body;
    else if (body !== undefined) {
      options.headers['content-type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch {
      return { status: 0, body: null };
    }
    let data = null;
    if (response.status !== 204) {
      try {
        data = await response.json();
      } catch {
        data = null;
      }
    }
    return { status: response.status, body: data, headers: response.headers };
  }

  /** The messages of an error answer, or what to say when there is none. */
  function messagesOf(result) {
    if (result.status === 0)
      return [say('network.none', {}, 'No connection to the server. Nothing was lost; try again.')];
    if (result.status === 429)
      return [
        say(
          'network.tooMany',
          {},
          'Too many attempts from your network just now. Wait a minute and try again.',
        ),
      ];
    const message = result.body && result.body.message;
    if (Array.isArray(message)) return message;
    if (typeof message === 'string') return [message];
    return [
      say('network.failed', { status: result.status }, `Something went wrong (${result.status}). Try again.`),
    ];
  }

  function clearProblems(root) {
    const summary = root.querySelector('[data-summary]');
    if (summary) {
      summary.hidden = true;
      summary.replaceChildren();
    }
    for (const field of root.querySelectorAll('.field.invalid')) {
      field.classList.remove('invalid');
      field.querySelector('[data-error]').textContent = '';
      for (const input of field.querySelectorAll('input, select, textarea'))
        input.removeAttribute('aria-invalid');
    }
  }

  /** Shows each problem next to its field (`key`) and all of them in the summary, which takes focus. */
  function showProblems(root, problems) {
    clearProblems(root);
    const summary = root.querySelector('[data-summary]');
    const heading = document.createElement('h2');
    heading.textContent = say(
      'summary.problems',
      { count: problems.length },
      problems.length === 1 ? 'There is a problem' : `There are ${problems.length} problems`,
    );
    const list = document.createElement('ul');
    for (const problem of problems) {
      const item = document.createElement('li');
      // `field`: the field itself, where a key is not enough (a field of a repeat, once per entry).
      const field =
        problem.field ?? (problem.key ? root.querySelector(`.field[data-key="${problem.key}"]`) : null);
      if (field) {
        field.classList.add('invalid');
        const error = field.querySelector('[data-error]');
        error.textContent = error.textContent ? `${error.textContent} ${problem.message}` : problem.message;
        const input = field.querySelector('input:not([type="hidden"]), select, textarea');
        for (const each of field.querySelectorAll('input, select, textarea'))
          each.setAttribute('aria-invalid', 'true');
        const link = document.createElement('a');
        link.href = `#${input ? input.id : ''}`;
        link.textContent = problem.message;
        link.addEventListener('click', (event) => {
          event.preventDefault();
          (input || field).focus();
        });
        item.append(link);
      } else item.textContent = problem.message;
      list.append(item);
    }
    summary.append(heading, list);
    summary.hidden = false;
    summary.focus();
  }

  /** Problems from the server's messages: "name rest" goes to the field `fields[name]` as "Label rest". */
  function problemsFrom(messages, fields) {
    return messages.map((message) => {
      const match = /^([A-Za-z][\w]*)((?:\.\w+)*)( .*)$/.exec(message);
      const target = match && Object.hasOwn(fields, match[1]) ? fields[match[1]] : null;
      if (!target) return { message };
      return { key: target.key, message: `${target.label}${match[2]}${match[3]}` };
    });
  }

  return { api, messagesOf, clearProblems, showProblems, problemsFrom, say, locale };
})();
