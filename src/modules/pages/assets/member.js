// The member pages' actions, each one call of the API with the session cookie (same origin): correcting and
// submitting an indicator report, starting a missing one, reminders on or off, turning a webhook endpoint
// back on, signing out. The server decides; its refusals are shown as they come.
'use strict';
(() => {
  const { api, messagesOf, clearProblems, showProblems, problemsFrom } = window.melPages;

  /** Latin digits for Arabic-Indic ones (a phone keyboard may type them), the Arabic decimal mark as `.`. */
  function parseNumber(text) {
    const latin = text
      .trim()
      .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
      .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
      .replace(/\u066b/g, '.');
    if (latin === '') return null;
    return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(latin) ? Number(latin) : Number.NaN;
  }

  async function busy(buttons, work) {
    for (const button of buttons) button.disabled = true;
    try {
      return await work();
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }

  const report = document.querySelector('form[data-report-edit]');
  if (report) {
    const buttons = [...report.querySelectorAll('button')];
    const saved = report.querySelector('[data-saved]');
    const fields = {
      value: { key: 'value', label: 'Value' },
      narrative: { key: 'narrative', label: 'Narrative' },
      disaggregatedValues: { key: 'breakdown-0', label: 'Breakdown' },
      justification: { key: 'justification', label: 'Justification' },
    };
    let etag = null;
    // The version read now is the one the edit is made on: If-Match refuses it if someone changed it since.
    void api('GET', report.dataset.api).then((read) => {
      if (read.status === 200) etag = read.headers.get('etag');
    });

    /** The body of the edit, or the problems of the fields the page can check itself. */
    function edit() {
      const problems = [];
      const body = {
        narrative: report.elements.narrative.value.trim() === '' ? null : report.elements.narrative.value,
      };
      const number = (input, label) => {
        const value = parseNumber(input.value);
        if (Number.isNaN(value)) {
          problems.push({ key: input.id, message: `${label} must be a number, like 1250 or 12.5` });
        }
        return value;
      };
      if (report.dataset.breakdown === 'categories') {
        const values = {};
        for (const holder of report.querySelectorAll('[data-category]')) {
          const input = holder.querySelector('input');
          const value = number(input, input.labels[0].textContent.trim());
          if (value !== null) values[holder.dataset.category] = value;
        }
        // Nothing filled in: no breakdown and no value yet.
        if (Object.keys(values).length === 0) Object.assign(body, { disaggregatedValues: null, value: null });
        else body.disaggregatedValues = values;
      } else {
        body.value = number(report.elements.value, 'Value');
        const before = report.dataset.value === '' ? null : Number(report.dataset.value);
        if (report.dataset.breakdown === 'stored' && body.value !== before) body.disaggregatedValues = null;
      }
      return { body, problems };
    }

    async function save(andSubmit) {
      clearProblems(report);
      saved.textContent = '';
      const { body, problems } = edit();
      if (problems.length > 0) return showProblems(report, problems);
      return busy(buttons, async () => {
        const changed = await api('PATCH', report.dataset.api, body, {
          headers: etag ? { 'if-match': etag } : {},
        });
        if (changed.status === 412) {
          return showProblems(report, [
            { message: 'Someone changed this report since you opened the page: reload the page to see it.' },
          ]);
        }
        if (changed.status !== 200) return showProblems(report, problemsFrom(messagesOf(changed), fields));
        etag = changed.headers.get('etag');
        report.dataset.value = changed.body.value === null ? '' : String(changed.body.value);
        if (!andSubmit) {
          saved.textContent = 'Saved as draft. It is not submitted yet.';
          return undefined;
        }
        const justification = report.elements.justification.value.trim();
        const submitted = await api(
          'PATCH',
          `${report.dataset.api}/submit`,
          justification === '' ? undefined : { justification },
        );
        if (submitted.status !== 200)
          return showProblems(report, problemsFrom(messagesOf(submitted), fields));
        document.querySelector('[data-status]').textContent = 'Submitted, waiting for review';
        report.hidden = true;
        const done = document.querySelector('[data-step="done"]');
        done.hidden = false;
        done.focus();
        return undefined;
      });
    }

    report.addEventListener('submit', (event) => {
      event.preventDefault();
      void save(true);
    });
    report.querySelector('[data-save]').addEventListener('click', () => void save(false));
  }

  const period = document.querySelector('[data-period]');
  if (period) {
    for (const start of period.querySelectorAll('[data-start]')) {
      start.addEventListener('click', () =>
        busy([start], async () => {
          clearProblems(period);
          const created = await api('POST', period.dataset.api, {
            indicatorId: start.dataset.start,
            reportingPeriodId: period.dataset.periodId,
          });
          // Started meanwhile by someone else: the page as it is now shows it.
          if (created.status === 409 && created.body && created.body.code === 'duplicate') {
            return window.location.reload();
          }
          if (created.status !== 201) return showProblems(period, problemsFrom(messagesOf(created), {}));
          return window.location.assign(
            `/projects/${period.dataset.projectId}/indicator-reports/${created.body.id}`,
          );
        }),
      );
    }
  }

  const reminders = document.querySelector('form[data-reminders]');
  if (reminders) {
    const saved = reminders.querySelector('[data-saved]');
    reminders.addEventListener('submit', (event) => {
      event.preventDefault();
      clearProblems(reminders);
      saved.textContent = '';
      const on = reminders.elements.reminders.checked;
      return busy([reminders.querySelector('button')], async () => {
        const result = await api('PATCH', '/auth/me', { notifications: { reminders: on } });
        if (result.status !== 200) return showProblems(reminders, problemsFrom(messagesOf(result), {}));
        saved.textContent = result.body.notifications.reminders
          ? 'Saved: you get deadline reminders.'
          : 'Saved: you no longer get deadline reminders.';
        return undefined;
      });
    });
  }

  for (const endpoint of document.querySelectorAll('[data-endpoint]')) {
    const turnOn = endpoint.querySelector('[data-turn-on]');
    turnOn?.addEventListener('click', () =>
      busy([turnOn], async () => {
        clearProblems(endpoint);
        const result = await api('PATCH', endpoint.dataset.api, { active: true });
        if (result.status !== 200) return showProblems(endpoint, problemsFrom(messagesOf(result), {}));
        const state = endpoint.querySelector('[data-state]');
        state.textContent =
          'Turned back on: events from now on are sent to it. Deliveries that failed can be sent again ' +
          'with their redeliver action in the API.';
        state.className = 'state on';
        turnOn.remove();
        state.setAttribute('tabindex', '-1');
        state.focus();
        return undefined;
      }),
    );
  }

  for (const signOut of document.querySelectorAll('[data-sign-out]')) {
    signOut.addEventListener('click', () =>
      busy([signOut], async () => {
        await api('POST', '/auth/logout');
        window.location.assign(signOut.dataset.next || '/sign-in');
      }),
    );
  }

  // Disabled until now: without this script a button would do nothing, and a form would put its fields in the URL.
  for (const ready of document.querySelectorAll('[data-ready]')) ready.disabled = false;
})();
