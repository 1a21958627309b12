// The respondent's form: skip logic as answers change, the server's checks before sending, then the
// server's own verdict. Each field is a .field[data-key] with data-type, data-required and showIf in
// data-show-field / data-show-equals, as form-page.ts renders it. What is typed is kept as a draft and
// every answer is kept on the device until the server has it (outbox.js), so it works offline too.
'use strict';
(() => {
  const { clearProblems, showProblems, problemsFrom } = window.melPages;
  const store = window.melAnswerStore;
  const form = document.querySelector('form.respondent');
  if (!form) return;
  const token = form.dataset.form;
  const fields = [...form.querySelectorAll('.field[data-key]')];
  const labels = Object.fromEntries(
    fields.map((f) => [f.dataset.key, { key: f.dataset.key, label: f.dataset.label }]),
  );
  const located = new Map();
  const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

  const inputOf = (field) => field.querySelector(`#f-${field.dataset.key}`);
  const isBlank = (text) => text.trim() === '';

  /** The field's answer as the API takes it; undefined when there is none (what the server calls blank). */
  function answerOf(field) {
    const input = inputOf(field);
    switch (field.dataset.type) {
      case 'text':
      case 'textarea':
      case 'select':
      case 'date':
        return isBlank(input.value) ? undefined : input.value;
      case 'number':
        if (input.value === '') return input.validity.badInput ? Number.NaN : undefined;
        return Number(input.value);
      case 'boolean': {
        const checked = field.querySelector('input:checked');
        return checked ? checked.value === 'true' : undefined;
      }
      case 'multi_select': {
        const values = [...field.querySelectorAll('input:checked')].map((box) => box.value);
        return values.length > 0 ? values : undefined;
      }
      case 'location':
        return located.get(field.dataset.key) ?? (isBlank(input.value) ? undefined : input.value);
      case 'file':
        return input.files[0];
      default:
        return undefined;
    }
  }

  const realDate = (text) => {
    if (!DATE.test(text)) return false;
    const date = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
  };

  /** The server's rule for one answer (answers.ts), or null when it passes. */
  function problemOf(field, answer) {
    const input = inputOf(field);
    switch (field.dataset.type) {
      case 'number':
        return Number.isFinite(answer) ? null : 'must be a number';
      case 'text':
      case 'textarea':
      case 'location':
        return typeof answer === 'string' && input.maxLength > 0 && answer.length > input.maxLength
          ? `must be at most ${input.maxLength} characters`
          : null;
      case 'date':
        return realDate(answer) ? null : 'must be a valid date (YYYY-MM-DD)';
      case 'file':
        return answer.size > Number(input.dataset.maxSize) ? 'must not be larger than 10 MiB' : null;
      default:
        return null;
    }
  }

  /** showIf as the server applies it: compared with the answers of the fields shown before it. */
  function isShown(field, shownAnswers) {
    if (field.dataset.showField === undefined) return true;
    const answer = shownAnswers[field.dataset.showField];
    const equals = JSON.parse(field.dataset.showEquals);
    return Array.isArray(answer) ? answer.includes(equals) : answer === equals;
  }

  /** Hides what skip logic hides (disabled, so it is neither checked nor sent); returns the shown answers. */
  function applySkipLogic() {
    const answers = {};
    for (const field of fields) {
      const shown = isShown(field, answers);
      field.hidden = !shown;
      for (const control of field.querySelectorAll('input, select, textarea, button'))
        control.disabled = !shown;
      if (!shown) continue;
      const answer = answerOf(field);
      if (answer !== undefined && problemOf(field, answer) === null) answers[field.dataset.key] = answer;
    }
  }

  function check() {
    const problems = [];
    for (const field of fields) {
      if (field.hidden) continue;
      const answer = answerOf(field);
      const label = field.dataset.label;
      if (answer === undefined) {
        if (field.dataset.required !== undefined)
          problems.push({ key: field.dataset.key, message: `${label} is required` });
        continue;
      }
      const problem = problemOf(field, answer);
      if (problem) problems.push({ key: field.dataset.key, message: `${label} ${problem}` });
    }
    return problems;
  }

  const statusOf = (field) => field.querySelector('[data-location-status]');
  const describeLocation = ({ lat, lng, accuracy }) =>
    `Location found: ${lat.toFixed(5)}, ${lng.toFixed(5)} (within about ${Math.round(accuracy)} m).`;

  for (const button of form.querySelectorAll('[data-locate]')) {
    const field = button.closest('.field');
    const key = field.dataset.key;
    const status = statusOf(field);
    const place = inputOf(field);
    if (!('geolocation' in navigator)) {
      button.hidden = true;
      status.textContent = 'This browser cannot share its location: type the place instead.';
      continue;
    }
    button.addEventListener('click', () => {
      status.textContent = 'Finding your location…';
      navigator.geolocation.getCurrentPosition(
        ({ coords }) => {
          const spot = { lat: coords.latitude, lng: coords.longitude, accuracy: coords.accuracy };
          located.set(key, spot);
          place.value = '';
          status.textContent = describeLocation(spot);
          applySkipLogic();
          saveDraft();
        },
        (error) => {
          status.textContent =
            error.code === error.PERMISSION_DENIED
              ? 'Sharing your location was refused: type the place instead.'
              : 'Your location could not be found: type the place instead.';
        },
        { enableHighAccuracy: true, timeout: 20000, maximumAge: 60000 },
      );
    });
    place.addEventListener('input', () => {
      if (!located.has(key)) return;
      located.delete(key);
      status.textContent = 'Using the place you typed instead of your location.';
    });
  }

  /** What the controls hold, as typed: kept as the draft and with each answer, to be put back. */
  function formState() {
    const state = {};
    for (const field of fields) {
      const key = field.dataset.key;
      const input = inputOf(field);
      switch (field.dataset.type) {
        case 'multi_select':
          state[key] = [...field.querySelectorAll('input:checked')].map((box) => box.value);
          break;
        case 'boolean': {
          const checked = field.querySelector('input:checked');
          state[key] = checked ? checked.value : null;
          break;
        }
        case 'location':
          state[key] = { place: input.value, located: located.get(key) ?? null };
          break;
        case 'file':
          state[key] = input.files[0] ?? null;
          break;
        default:
          state[key] = input.value;
      }
    }
    return state;
  }

  function fillForm(state) {
    located.clear();
    for (const field of fields) {
      const key = field.dataset.key;
      const input = inputOf(field);
      const value = state[key];
      switch (field.dataset.type) {
        case 'multi_select':
          for (const box of field.querySelectorAll('input'))
            box.checked = Array.isArray(value) && value.includes(box.value);
          break;
        case 'boolean':
          for (const radio of field.querySelectorAll('input')) radio.checked = radio.value === value;
          break;
        case 'location':
          input.value = value ? value.place : '';
          if (value && value.located) located.set(key, value.located);
          statusOf(field).textContent = value && value.located ? describeLocation(value.located) : '';
          break;
        case 'file': {
          const files = new window.DataTransfer();
          if (value) files.items.add(value);
          input.files = files.files;
          break;
        }
        default:
          input.value = value ?? '';
      }
    }
    applySkipLogic();
  }

  const isBlankForm = () => fields.every((field) => answerOf(field) === undefined);

  // Written on every change, so that closing the tab a moment later loses nothing. Not while an answer
  // is being sent: the form is cleared once it is kept.
  let sending = false;
  const saveDraft = async () => {
    if (sending) return;
    await store.putDraft({ form: token, state: formState(), savedAt: Date.now() }).catch(() => undefined);
  };

  form.addEventListener('input', applySkipLogic);
  form.addEventListener('change', applySkipLogic);
  form.addEventListener('input', saveDraft);
  form.addEventListener('change', saveDraft);
  applySkipLogic();

  const button = form.querySelector('button[type="submit"]');
  const progress = form.querySelector('[data-progress]');
  const SEND_WAIT = 10_000;
  const NOT_KEPT =
    'Your answers could not be kept on this device (its storage may be full), so nothing was sent. Free some space and try again.';
  const delay = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));
  const views = {
    form,
    thanks: document.querySelector('[data-thanks]'),
    saved: document.querySelector('[data-saved]'),
    closed: document.querySelector('[data-closed]'),
  };

  function show(name) {
    for (const [key, view] of Object.entries(views)) view.hidden = key !== name;
    if (name !== 'form') {
      views[name].focus();
      window.scrollTo(0, 0);
    }
  }

  function startAnother() {
    fillForm({});
    clearProblems(form);
    show('form');
    const first = form.querySelector('.field:not([hidden]) :is(input, select, textarea)');
    if (first) first.focus();
  }
  for (const another of document.querySelectorAll('[data-another]'))
    another.addEventListener('click', startAnother);

  const outbox = window.melOutbox(token, form.dataset.submitUrl);

  /**
   * Puts a refused answer back in the form with the server's messages beside its fields; `inForm` when
   * the form shows it already (it was refused as it was sent).
   */
  async function correct(key, inForm = false) {
    const isTyping = !inForm && !form.hidden && !isBlankForm();
    if (isTyping && !window.confirm('Replace what is typed in the form with the refused answer?')) return;
    const answer = await outbox.answer(key);
    if (!answer) return;
    show('form');
    fillForm(answer.formState);
    // The draft holds it before the kept answer goes: a correction is a new answer, with a new key.
    await saveDraft();
    await outbox.discard(key);
    showProblems(
      form,
      problemsFrom(
        answer.messages.map((message) => message.replace(/^answers\./, '')),
        labels,
      ),
    );
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    applySkipLogic();
    const problems = check();
    if (problems.length > 0) return showProblems(form, problems);
    clearProblems(form);

    const answers = {};
    const files = [];
    for (const field of fields) {
      const answer = field.hidden ? undefined : answerOf(field);
      if (answer === undefined) continue;
      if (field.dataset.type === 'file') files.push({ key: field.dataset.key, file: answer });
      else answers[field.dataset.key] = answer;
    }
    button.disabled = true;
    sending = true;
    progress.textContent = files.length > 0 ? 'Sending your answers and files…' : 'Sending your answers…';
    // Kept before any attempt to send it; the draft goes once the answer is kept.
    const key = await outbox.keep({ formState: formState(), answers, files }).catch(() => null);
    if (key) await store.deleteDraft(token).catch(() => undefined);
    // A slow connection does not keep the respondent waiting: the answer is kept and goes when it can.
    const fate = key && (await Promise.race([outbox.send(key), delay(SEND_WAIT).then(() => 'waiting')]));
    sending = false;
    button.disabled = false;
    progress.textContent = '';
    if (!key) return showProblems(form, [{ message: NOT_KEPT }]);
    if (fate === 'refused') return correct(key, true);
    show(fate === 'sent' ? 'thanks' : fate === 'closed' ? 'closed' : 'saved');
    fillForm({});
    return undefined;
  });

  /** The page and its scripts kept by the service worker, so that the link opens without a connection. */
  async function keepForOffline() {
    if (!('serviceWorker' in navigator)) return;
    await navigator.serviceWorker.register(form.dataset.worker, { scope: '/f/' });
    const worker = (await navigator.serviceWorker.ready).active;
    const paths = [
      window.location.pathname,
      ...[...document.querySelectorAll('script[src], link[rel="stylesheet"]')].map(
        (element) => element.getAttribute('src') ?? element.getAttribute('href'),
      ),
    ];
    const kept = await new Promise((resolve) => {
      const channel = new window.MessageChannel();
      channel.port1.onmessage = (message) => resolve(Boolean(message.data && message.data.kept));
      worker.postMessage({ keep: paths }, [channel.port2]);
    });
    form.querySelector('[data-offline-ready]').hidden = !kept;
  }

  (async () => {
    // Before anything is shown or sent: what is older is neither.
    const keptFor = Number(form.dataset.keptDays) * 24 * 60 * 60 * 1000;
    await store.forgetBefore(Date.now() - keptFor).catch(() => undefined);
    const draft = await store.draftOf(token).catch(() => undefined);
    if (draft) fillForm(draft.state);
    window.melOutboxPanel(document.querySelector('[data-outbox]'), outbox, { labels, correct });
    // The button comes disabled: before this script took over, the browser would send the answers
    // itself, as a GET with every answer in the URL.
    button.disabled = false;
    // Answers kept at an earlier visit go now.
    void outbox.flush();
    await keepForOffline().catch(() => undefined);
  })();
})();
