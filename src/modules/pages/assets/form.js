// The respondent's form: skip logic (showIf, relevant), constraints and calculations as answers
// change, the server's checks before sending, then the server's own verdict. Each field is a
// .field[data-key] with data-type, data-required, data-relevant, data-constraint, data-calculation ...
// as form-page.ts renders it; a group's fields are in its .fields, a repeat's entries are built from
// its <template>. Expressions are evaluated by form-expressions.js (window.melExpressions), as the
// service evaluates them. What is typed is kept as a draft and every answer is kept on the device until
// the server has it (outbox.js), so it works offline too. Strings come from the page's catalogues (say).
'use strict';
(() => {
  const { clearProblems, showProblems, problemsFrom, say } = window.melPages;
  const store = window.melAnswerStore;
  const expressions = window.melExpressions;
  const form = document.querySelector('form.respondent');
  if (!form) return;
  const token = form.dataset.form;
  const language = document.documentElement.lang || 'en';
  /** Where each field is: `{ type, repeats }` by key (form-page.ts placesOf). */
  const places = JSON.parse(document.getElementById('form-places')?.textContent ?? '{}');
  const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
  const MAX_ENTRIES = 500;
  // The language's decimal separator: `,` is read as one where the language writes 2,5 (readNumber).
  const decimal =
    new Intl.NumberFormat(language).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
  const readOptions = { comma: decimal !== '.' };
  const shownNumber = new Intl.NumberFormat(language, { maximumFractionDigits: 6 });
  const count = new Intl.NumberFormat(language);

  const isBlank = (text) => text.trim() === '';
  const labelOf = (field) => field.dataset.label;

  /** The fields directly in a level (the form, a group's .fields, a repeat entry). */
  const fieldsOf = (container) => [...container.children].filter((el) => el.classList.contains('field'));
  const bodyOf = (group) => group.querySelector(':scope > .fields');
  const entriesOf = (repeat) => [...repeat.querySelector(':scope > [data-entries]').children];
  const inputOf = (field) => field.querySelector('[data-input]');
  const isLeaf = (field) => !['group', 'repeat', 'note', 'calculate'].includes(field.dataset.type);

  /** Every field under `container`, entries of repeats included, in order. */
  function eachField(container, visit) {
    for (const field of fieldsOf(container)) {
      visit(field);
      if (field.dataset.type === 'group') eachField(bodyOf(field), visit);
      else if (field.dataset.type === 'repeat') for (const entry of entriesOf(field)) eachField(entry, visit);
    }
  }

  /** The fields answered once (groups' fields included, not what repeats hold), for the server's messages. */
  const labels = {};
  (function topLevel(container) {
    for (const field of fieldsOf(container)) {
      labels[field.dataset.key] = { key: field.dataset.key, label: labelOf(field) };
      if (field.dataset.type === 'group') topLevel(bodyOf(field));
    }
  })(form);

  // Coordinates found for a location field, by the field's element (a repeat has one per entry).
  let located = new WeakMap();

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
        // Read in any digits; what cannot be read is NaN ("must be a number"), never "is required".
        return isBlank(input.value) ? undefined : expressions.readNumber(input.value, readOptions);
      case 'boolean': {
        const checked = field.querySelector('input:checked');
        return checked ? checked.value === 'true' : undefined;
      }
      case 'multi_select': {
        const values = [...field.querySelectorAll('input:checked')].map((box) => box.value);
        return values.length > 0 ? values : undefined;
      }
      case 'location':
        return located.get(field) ?? (isBlank(input.value) ? undefined : input.value);
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

  /** The server's rule for one answer (answers.ts), as a message with the field's label; null when it passes. */
  function problemOf(field, answer) {
    const input = inputOf(field);
    const label = labelOf(field);
    switch (field.dataset.type) {
      case 'number':
        if (!Number.isFinite(answer)) return say('problem.number', { label }, `${label} must be a number`);
        return field.dataset.integer !== undefined && !Number.isInteger(answer)
          ? say('problem.wholeNumber', { label }, `${label} must be a whole number`)
          : null;
      case 'text':
      case 'textarea':
      case 'location':
        return typeof answer === 'string' && input.maxLength > 0 && answer.length > input.maxLength
          ? say('problem.tooLong', { label, max: count.format(input.maxLength) })
          : null;
      case 'date':
        return realDate(answer) ? null : say('problem.date', { label });
      case 'file':
        return answer.size > Number(input.dataset.maxSize) ? say('problem.fileSize', { label }) : null;
      default:
        return null;
    }
  }

  // Expressions: parsed once each; one that cannot be evaluated here is left to the service.
  const parse = expressions ? expressions.cachedParser(500) : null;
  function run(text, context, fallback) {
    if (text === undefined || !parse) return fallback;
    try {
      return expressions.evaluate(parse(text), context);
    } catch {
      return fallback;
    }
  }
  const truthy = (value) => expressions.toBoolean(value);

  /** The answers within reach of the value of `name` from `scope`, as the service finds them (answers.ts). */
  function gather(answers, repeats, name, isRepeat) {
    if (repeats.length === 0) {
      const value = answers[name];
      if (isRepeat) return Array.isArray(value) ? value : [];
      return value === undefined ? [] : [value];
    }
    const [first, ...rest] = repeats;
    const entries = answers[first];
    return Array.isArray(entries) ? entries.flatMap((entry) => gather(entry, rest, name, isRepeat)) : [];
  }

  /**
   * The value of a field for an expression evaluated in `scope` (the answers of the level, the repeat
   * it is an entry of, the scope holding it): a field of the same entry or an outer level gives its
   * answer, a field inside repeats seen from outside them the list of its answers.
   */
  function valueIn(scope, name) {
    const target = places[name];
    if (!target) return undefined;
    const levels = [];
    for (let level = scope; level; level = level.outer) levels.unshift(level);
    const path = levels.slice(1).map((level) => level.repeat);
    let common = 0;
    while (common < target.repeats.length && path[common] === target.repeats[common]) common += 1;
    const level = levels[common];
    if (common === target.repeats.length) return level.answers[name];
    return gather(level.answers, target.repeats.slice(common), name, target.type === 'repeat');
  }

  const today = () => new Date().toISOString().slice(0, 10);
  // A pattern this browser cannot compile passes here: the service (a linear-time engine) decides.
  const matches = (pattern, text) => {
    try {
      return new RegExp(pattern, 'u').test(text);
    } catch {
      return true;
    }
  };
  const contextOf = (scope, self) => ({
    value: (name) => (self && name === self.key ? self.value : valueIn(scope, name)),
    self: self ? self.value : undefined,
    today,
    matches,
  });

  /** showIf and relevant, both as the service applies them. */
  function isAsked(field, scope) {
    if (field.dataset.showField !== undefined) {
      const answer = valueIn(scope, field.dataset.showField);
      const equals = JSON.parse(field.dataset.showEquals);
      if (!(Array.isArray(answer) ? answer.includes(equals) : answer === equals)) return false;
    }
    return (
      field.dataset.relevant === undefined || truthy(run(field.dataset.relevant, contextOf(scope), true))
    );
  }

  /** What a calculate field holds: a finite number, else a text that is not empty (as the service stores it). */
  function calculated(result) {
    if (typeof result === 'number') return Number.isFinite(result) ? result : undefined;
    const text = expressions.toText(result);
    return text === '' ? undefined : text.slice(0, 20000);
  }

  /** Shows or hides a field; the controls of a hidden one are disabled, so they are neither checked nor sent. */
  function setAsked(field, asked) {
    field.hidden = !asked;
    if (!isLeaf(field)) return;
    for (const control of field.querySelectorAll('input, select, textarea, button'))
      control.disabled = !asked;
  }

  /** Add while below maxCount, Remove while above minCount; the entries numbered. */
  function updateRepeat(repeat, asked) {
    const entries = entriesOf(repeat);
    const min = Number(repeat.dataset.minCount ?? 0);
    const max = Number(repeat.dataset.maxCount ?? MAX_ENTRIES);
    const add = repeat.querySelector(':scope > .repeat-actions [data-add]');
    add.hidden = entries.length >= max;
    add.disabled = !asked;
    repeat.querySelector(':scope > .repeat-actions [data-full]').hidden = entries.length < max;
    entries.forEach((entry, index) => {
      entry.querySelector(':scope > [data-entry-heading]').textContent = say('repeat.entry', {
        number: count.format(index + 1),
      });
      const remove = entry.querySelector(':scope > [data-remove]');
      remove.hidden = entries.length <= min;
      remove.disabled = !asked;
    });
  }

  /**
   * Walks the fields of a level in order, as the service checks a submission: shows what is asked,
   * computes calculations, and collects the answers to send (`out`), the answers expressions see
   * (`scope.answers`: good ones and calculations) and the problems.
   */
  function walk(container, scope, out, hidden, report) {
    for (const field of fieldsOf(container)) {
      const { key, type } = field.dataset;
      const asked = !hidden && isAsked(field, scope);
      setAsked(field, asked);
      switch (type) {
        case 'group':
          walk(bodyOf(field), scope, out, !asked, report);
          continue;
        case 'note':
          continue;
        case 'calculate': {
          const result = asked
            ? calculated(run(field.dataset.calculation, contextOf(scope), undefined))
            : undefined;
          if (result !== undefined) scope.answers[key] = result;
          field.querySelector('[data-output]').textContent =
            result === undefined ? '' : typeof result === 'number' ? shownNumber.format(result) : result;
          continue;
        }
        case 'repeat': {
          const entries = [];
          const kept = [];
          for (const entry of entriesOf(field)) {
            const inner = { answers: {}, repeat: key, outer: scope };
            const entryOut = {};
            walk(entry, inner, entryOut, !asked, report);
            entries.push(entryOut);
            kept.push(inner.answers);
          }
          updateRepeat(field, asked);
          if (!asked) continue;
          out[key] = entries;
          scope.answers[key] = kept;
          const min = Number(field.dataset.minCount ?? 0);
          if (entries.length < min) {
            const label = labelOf(field);
            report.problems.push({ field, key, message: say('problem.fewEntries', { label, count: min }) });
          }
          continue;
        }
        default:
          break;
      }
      if (!asked) continue;
      const answer = answerOf(field);
      const label = labelOf(field);
      if (answer === undefined) {
        if (field.dataset.required !== undefined)
          report.problems.push({
            field,
            key,
            message: say('problem.required', { label }, `${label} is required`),
          });
        continue;
      }
      if (type === 'file') report.files.push({ key, file: answer });
      else out[key] = answer;
      const problem = problemOf(field, answer);
      if (problem) {
        report.problems.push({ field, key, message: problem, typed: true });
        continue;
      }
      const { constraint, constraintMessage } = field.dataset;
      if (
        constraint !== undefined &&
        !truthy(run(constraint, contextOf(scope, { key, value: answer }), true))
      ) {
        const message =
          constraintMessage !== undefined
            ? say('problem.constraintMessage', { label, message: constraintMessage })
            : say('problem.constraint', { label });
        report.problems.push({ field, key, message, typed: true });
        continue;
      }
      // A file is not an answer expressions read (the service keeps it apart).
      if (type !== 'file') scope.answers[key] = answer;
    }
  }

  /** The whole form as it stands: `{ answers, files, problems }`; shows and hides fields on the way. */
  function evaluate() {
    const report = { answers: {}, files: [], problems: [] };
    walk(form, { answers: {}, repeat: null, outer: null }, report.answers, false, report);
    return report;
  }

  /** Beside a field just changed: what is wrong with its answer (not that it is missing), or nothing. */
  function showFieldProblem(field, report) {
    if (!field || !isLeaf(field)) return;
    const problem = report.problems.find((each) => each.field === field && each.typed);
    const error = field.querySelector('[data-error]');
    if (problem) {
      field.classList.add('invalid');
      error.textContent = problem.message;
      for (const each of field.querySelectorAll('input, select, textarea'))
        each.setAttribute('aria-invalid', 'true');
    } else if (field.classList.contains('invalid')) {
      field.classList.remove('invalid');
      error.textContent = '';
      for (const each of field.querySelectorAll('input, select, textarea'))
        each.removeAttribute('aria-invalid');
    }
  }

  // Entries get ids and names of their own: the template's, each with a suffix no other entry has.
  let made = 0;
  const RENAMED = ['id', 'for', 'name', 'aria-describedby', 'aria-labelledby'];
  function newEntry(repeat) {
    const template = repeat.querySelector(':scope > template[data-template]');
    const fragment = template.content.cloneNode(true);
    made += 1;
    for (const element of fragment.querySelectorAll(RENAMED.map((name) => `[${name}]`).join(', '))) {
      for (const name of RENAMED) {
        const value = element.getAttribute(name);
        if (value !== null)
          element.setAttribute(
            name,
            value
              .split(' ')
              .map((part) => `${part}-r${made}`)
              .join(' '),
          );
      }
    }
    const entry = fragment.firstElementChild;
    repeat.querySelector(':scope > [data-entries]').append(entry);
    prepareLocations(entry);
    return entry;
  }

  /** Makes `n` entries (minCount at first), fresh. */
  function setEntries(repeat, n) {
    repeat.querySelector(':scope > [data-entries]').replaceChildren();
    for (let index = 0; index < n; index += 1) newEntry(repeat);
  }

  const statusOf = (field) => field.querySelector('[data-location-status]');
  const describeLocation = ({ lat, lng, accuracy }) =>
    say('location.found', {
      lat: lat.toFixed(5),
      lng: lng.toFixed(5),
      metres: count.format(Math.round(accuracy)),
    });

  function prepareLocations(root) {
    if ('geolocation' in navigator) return;
    for (const button of root.querySelectorAll('[data-locate]')) {
      button.hidden = true;
      statusOf(button.closest('.field')).textContent = say('location.unsupported');
    }
  }

  function locate(field) {
    const status = statusOf(field);
    const place = inputOf(field);
    status.textContent = say('location.finding');
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => {
        const spot = { lat: coords.latitude, lng: coords.longitude, accuracy: coords.accuracy };
        located.set(field, spot);
        place.value = '';
        status.textContent = describeLocation(spot);
        evaluate();
        saveDraft();
      },
      (error) => {
        status.textContent = say(
          error.code === error.PERMISSION_DENIED ? 'location.refused' : 'location.notFound',
        );
      },
      { enableHighAccuracy: true, timeout: 20000, maximumAge: 60000 },
    );
  }

  /** What the controls hold, as typed, level by level (a repeat: a list of its entries'): the draft. */
  function stateOf(container) {
    const state = {};
    for (const field of fieldsOf(container)) {
      const { key, type } = field.dataset;
      const input = inputOf(field);
      switch (type) {
        case 'group':
          Object.assign(state, stateOf(bodyOf(field)));
          break;
        case 'repeat':
          state[key] = entriesOf(field).map(stateOf);
          break;
        case 'note':
        case 'calculate':
          break;
        case 'multi_select':
          state[key] = [...field.querySelectorAll('input:checked')].map((box) => box.value);
          break;
        case 'boolean': {
          const checked = field.querySelector('input:checked');
          state[key] = checked ? checked.value : null;
          break;
        }
        case 'location':
          state[key] = { place: input.value, located: located.get(field) ?? null };
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
  const formState = () => stateOf(form);

  function fillLevel(container, state) {
    for (const field of fieldsOf(container)) {
      const { key, type } = field.dataset;
      const input = inputOf(field);
      const value = state[key];
      switch (type) {
        case 'group':
          fillLevel(bodyOf(field), state);
          break;
        case 'repeat': {
          const list = Array.isArray(value) ? value : null;
          setEntries(field, list ? list.length : Number(field.dataset.minCount ?? 0));
          entriesOf(field).forEach((entry, index) => fillLevel(entry, (list && list[index]) || {}));
          break;
        }
        case 'note':
        case 'calculate':
          break;
        case 'multi_select':
          for (const box of field.querySelectorAll('input'))
            box.checked = Array.isArray(value) && value.includes(box.value);
          break;
        case 'boolean':
          for (const radio of field.querySelectorAll('input')) radio.checked = radio.value === value;
          break;
        case 'location':
          input.value = value ? value.place : '';
          if (value && value.located) located.set(field, value.located);
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
  }

  function fillForm(state) {
    located = new WeakMap();
    fillLevel(form, state);
    evaluate();
  }

  function isBlankForm() {
    let blank = true;
    eachField(form, (field) => {
      if (isLeaf(field) && answerOf(field) !== undefined) blank = false;
    });
    return blank;
  }

  // Written on every change, so that closing the tab a moment later loses nothing. Not while an answer
  // is being sent: the form is cleared once it is kept.
  let sending = false;
  const saveDraft = async () => {
    if (sending) return;
    await store.putDraft({ form: token, state: formState(), savedAt: Date.now() }).catch(() => undefined);
  };

  form.addEventListener('input', (event) => {
    const field = event.target.closest('.field');
    if (field && field.dataset.type === 'location' && event.target === inputOf(field) && located.has(field)) {
      located.delete(field);
      statusOf(field).textContent = say('location.typed');
    }
    evaluate();
    void saveDraft();
  });
  // A message shown or cleared as a field loses the focus to a button being pressed would move the
  // button before the press ends, and the press would be lost: it waits for the press (and Send shows
  // every problem itself).
  let pressed = null;
  let waitingField = null;
  form.addEventListener('pointerdown', (event) => {
    pressed = event.target.closest('button');
  });
  window.addEventListener('pointerup', () =>
    window.setTimeout(() => {
      const field = waitingField;
      const wasSend = pressed && pressed.type === 'submit';
      pressed = null;
      waitingField = null;
      if (field && !wasSend && field.isConnected) showFieldProblem(field, evaluate());
    }),
  );
  form.addEventListener('change', (event) => {
    const field = event.target.closest('.field');
    if (pressed) {
      waitingField = field;
      evaluate();
    } else showFieldProblem(field, evaluate());
    void saveDraft();
  });
  form.addEventListener('click', (event) => {
    const target = event.target.closest('button[type="button"]');
    if (!target) return;
    const repeat = target.closest('.field[data-type="repeat"]');
    if (target.matches('[data-locate]')) locate(target.closest('.field'));
    else if (target.matches('[data-add]') && repeat) {
      const entry = newEntry(repeat);
      evaluate();
      void saveDraft();
      const first = entry.querySelector('.field:not([hidden]) :is(input, select, textarea)');
      if (first) first.focus();
    } else if (target.matches('[data-remove]') && repeat) {
      target.closest('[data-entry]').remove();
      evaluate();
      void saveDraft();
      repeat.querySelector(':scope > .repeat-actions [data-add]').focus();
    }
  });
  prepareLocations(form);
  for (const repeat of form.querySelectorAll('.field[data-type="repeat"]'))
    setEntries(repeat, Number(repeat.dataset.minCount ?? 0));
  evaluate();

  const button = form.querySelector('button[type="submit"]');
  const progress = form.querySelector('[data-progress]');
  const SEND_WAIT = 10_000;
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
    if (isTyping && !window.confirm(say('confirm.replace'))) return;
    const answer = await outbox.answer(key);
    if (!answer) return;
    show('form');
    fillForm(answer.formState);
    // The draft holds it before the kept answer goes: a correction is a new answer, with a new key.
    await saveDraft();
    await outbox.discard(key);
    showProblems(form, serverProblems(answer.messages));
  }

  /**
   * The server's messages beside their fields: `answers.members.1.name is required` goes to the name
   * field of the repeat's second entry, `answers.size: <constraint message>` to the size field, each
   * with the field's label; what names no field stays in the summary only.
   */
  function serverProblems(messages) {
    return messages.map((text) => {
      const message = text.replace(/^answers\./, '');
      const match = /^([a-z][a-z0-9_]*(?:\.\d+\.[a-z][a-z0-9_]*)*)(:? .*)$/.exec(message);
      if (!match) return problemsFrom([message], labels)[0];
      const [first, ...rest] = match[1].split('.');
      let field = form.querySelector(`.field[data-key="${first}"]`);
      for (let index = 0; field && index < rest.length; index += 2) {
        const entry = field.dataset.type === 'repeat' ? entriesOf(field)[Number(rest[index])] : undefined;
        field = entry ? entry.querySelector(`.field[data-key="${rest[index + 1]}"]`) : null;
      }
      if (!field) return problemsFrom([message], labels)[0];
      return { field, key: field.dataset.key, message: `${labelOf(field)}${match[2]}` };
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { answers, files, problems } = evaluate();
    if (problems.length > 0) return showProblems(form, problems);
    clearProblems(form);

    button.disabled = true;
    sending = true;
    progress.textContent = say(files.length > 0 ? 'progress.sendingFiles' : 'progress.sending');
    // Kept before any attempt to send it; the draft goes once the answer is kept.
    const key = await outbox.keep({ formState: formState(), answers, files }).catch(() => null);
    if (key) await store.deleteDraft(token).catch(() => undefined);
    // A slow connection does not keep the respondent waiting: the answer is kept and goes when it can.
    const fate = key && (await Promise.race([outbox.send(key), delay(SEND_WAIT).then(() => 'waiting')]));
    sending = false;
    button.disabled = false;
    progress.textContent = '';
    if (!key) return showProblems(form, [{ message: say('problem.notKept') }]);
    if (fate === 'refused') return correct(key, true);
    show(fate === 'sent' ? 'thanks' : fate === 'closed' ? 'closed' : 'saved');
    fillForm({});
    return undefined;
  });

  /**
   * The page and its scripts kept by the service worker, so that the link opens without a connection:
   * the page under its address with its query (?lang=), so that it opens again in the language it was
   * opened in.
   */
  async function keepForOffline() {
    if (!('serviceWorker' in navigator)) return;
    await navigator.serviceWorker.register(form.dataset.worker, { scope: '/f/' });
    const worker = (await navigator.serviceWorker.ready).active;
    const paths = [
      window.location.pathname + window.location.search,
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
