// The respondent's form: skip logic as answers change, the server's checks before sending, then the
// server's own verdict. Each field is a .field[data-key] with data-type, data-required and showIf in
// data-show-field / data-show-equals, as form-page.ts renders it.
'use strict';
(() => {
  const { api, messagesOf, clearProblems, showProblems, problemsFrom } = window.melPages;
  const form = document.querySelector('form.respondent');
  if (!form) return;
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

  for (const button of form.querySelectorAll('[data-locate]')) {
    const field = button.closest('.field');
    const key = field.dataset.key;
    const status = field.querySelector('[data-location-status]');
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
          located.set(key, { lat: coords.latitude, lng: coords.longitude, accuracy: coords.accuracy });
          place.value = '';
          status.textContent = `Location found: ${coords.latitude.toFixed(5)}, ${coords.longitude.toFixed(5)} (within about ${Math.round(coords.accuracy)} m).`;
          applySkipLogic();
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

  form.addEventListener('input', applySkipLogic);
  form.addEventListener('change', applySkipLogic);
  applySkipLogic();

  const button = form.querySelector('button[type="submit"]');
  const progress = form.querySelector('[data-progress]');

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
      if (field.dataset.type === 'file') files.push([field.dataset.key, answer]);
      else answers[field.dataset.key] = answer;
    }
    let body = { answers };
    if (files.length > 0) {
      body = new FormData();
      body.append('data', JSON.stringify({ answers }));
      for (const [key, file] of files) body.append(key, file, file.name);
    }
    button.disabled = true;
    progress.textContent = files.length > 0 ? 'Sending your answers and files…' : 'Sending your answers…';
    const result = await api('POST', form.dataset.submitUrl, body);
    button.disabled = false;
    progress.textContent = '';
    if (result.status === 201) {
      const thanks = document.querySelector('[data-thanks]');
      form.hidden = true;
      thanks.hidden = false;
      thanks.focus();
      window.scrollTo(0, 0);
      return undefined;
    }
    const messages = result.status === 404 ? ['This form is no longer available.'] : messagesOf(result);
    return showProblems(
      form,
      problemsFrom(
        messages.map((m) => m.replace(/^answers\./, '')),
        labels,
      ),
    );
  });
  // The button comes disabled: before this script took over, the browser would send the answers itself,
  // as a GET with every answer in the URL.
  button.disabled = false;
})();
