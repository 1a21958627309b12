import Negotiator from 'negotiator';
import { PLACE_MAX, TEXT_MAX, type FormField } from '../forms/index.js';
import { ACCEPTED_TYPES, MAX_FILE_SIZE } from '../../storage/file-storage.js';
import {
  clientMessages,
  directionOf,
  pickLocale,
  translator,
  type Locale,
  type Translate,
} from '../../lib/i18n/i18n.js';
import { html, jsonBlock, raw, type Html } from './html.js';
import { languageLinks, markup, moment, notice, type PageContent } from './layout.js';

/** A language the form is written in: its BCP 47 code and its name in itself. */
export interface FormLanguage {
  code: string;
  name: string;
}

export interface PublicFormView {
  title: string;
  description: string | null;
  fields: FormField[];
  closesAt: Date | string | null;
  /** The language of the strings above (the form's default when absent: English). */
  language?: string;
  /** Every language the form is written in, its default first. */
  languages?: FormLanguage[];
}

const ACCEPT = [...Object.keys(ACCEPTED_TYPES), '.pdf,.jpg,.jpeg,.png,.webp,.docx,.xlsx,.csv'].join(',');
const FILE_TYPES = Object.values(ACCEPTED_TYPES).join(', ');

/** ASCII, Arabic-Indic and Persian digits, a minus and a decimal separator: what readNumber takes. */
const NUMBER_PATTERN = '[\\-−]?[0-9٠-٩۰-۹]*[.,٫]?[0-9٠-٩۰-۹]+';

/**
 * The language of the page's own strings (buttons, messages): the form's language when the pages
 * speak it (LOCALES), else English. The form's own strings stay in the form's language.
 */
export const pageLocaleOf = (language: string | undefined): Locale => pickLocale(language ?? 'en');

/** What every part of the page is rendered with. */
interface Render {
  t: Translate;
}

/** The choices of a choice field: `choices`, or `options` each its own name and label. */
const choicesOf = (field: FormField) =>
  field.choices ?? (field.options ?? []).map((option) => ({ name: option, label: option }));

const labelOf = (field: FormField) => field.label ?? field.key;

const requiredMark = (field: FormField, { t }: Render) =>
  field.required ? html` <span class="required">${t('page.required')}</span>` : null;

/**
 * The input(s) of one field; ids and names come from the key, which is `[a-z][a-z0-9_]*` (form.js
 * makes them unique in each repeat entry). The main control carries `data-input`.
 */
function control(field: FormField, id: string, describedBy: string, r: Render): Html {
  const { t } = r;
  // A location is answered by coordinates or by the place's name: form.js checks that one is there.
  const required = field.required && field.type !== 'location';
  const common = html`id="${id}" name="${field.key}"
  aria-describedby="${describedBy}"${required ? html` required` : null} data-input`;
  switch (field.type) {
    case 'text':
      return html`<input type="text" ${common} maxlength="${TEXT_MAX.text}" />`;
    case 'textarea':
      return html`<textarea ${common} rows="4" maxlength="${TEXT_MAX.textarea}"></textarea>`;
    case 'number':
      // A text input: Chromium's number input drops Arabic-Indic digits; form.js reads them (readNumber).
      return html`<input type="text" inputmode="${field.integer ? 'numeric' : 'decimal'}" ${common}
        pattern="${NUMBER_PATTERN}" autocomplete="off" spellcheck="false" data-number />`;
    case 'date':
      return html`<input type="date" ${common} />`;
    case 'select':
      return html`<select ${common}>
        <option value="">${t('page.choose')}</option>
        ${choicesOf(field).map((choice) => html`<option value="${choice.name}">${choice.label}</option> `)}
      </select>`;
    case 'file':
      return html`<input type="file" ${common} accept="${ACCEPT}" data-max-size="${MAX_FILE_SIZE}" />`;
    case 'multi_select':
      return html`${choicesOf(field).map(
        (choice, index) =>
          html`<label class="choice"
            ><input type="checkbox" name="${field.key}" value="${choice.name}" id="${id}-${index}" />
            ${choice.label}</label
          > `,
      )}`;
    case 'boolean':
      return html`<label class="choice"
          ><input type="radio" name="${field.key}" value="true" id="${id}" data-input /> ${t('page.yes')}</label
        >
        <label class="choice"
          ><input type="radio" name="${field.key}" value="false" id="${id}-no" /> ${t('page.no')}</label
        >`;
    case 'location':
      return html`<button type="button" class="secondary" data-locate>${t('location.use')}</button>
        <p class="hint" data-location-status aria-live="polite"></p>
        <label for="${id}">${t('location.typePlace')}</label>
        <input type="text" ${common} maxlength="${PLACE_MAX}" autocomplete="off" />`;
    case 'note':
    case 'calculate':
    case 'group':
    case 'repeat':
      return html``;
  }
}

/** Choices and the location come as a group named by a legend; the rest as one labelled input. */
const GROUPED: FormField['type'][] = ['multi_select', 'boolean', 'location'];

/** The data attributes form.js reads: type, label, required, skip logic, checks, calculation, counts. */
function dataOf(field: FormField, extraClass = ''): Html {
  const optional = (name: string, value: string | number | undefined) =>
    value === undefined ? null : html` ${raw(name)}="${value}"`;
  return html`class="field${extraClass}" data-key="${field.key}" data-type="${field.type}"
  data-label="${labelOf(field)}"${field.required ? html` data-required` : null}${
    field.showIf
      ? html` data-show-field="${field.showIf.field}"
        data-show-equals="${JSON.stringify(field.showIf.equals)}"`
      : null
  }${optional('data-relevant', field.relevant)}${optional('data-constraint', field.constraint)}${optional(
    'data-constraint-message',
    field.constraintMessage,
  )}${optional('data-calculation', field.calculation)}${field.integer ? html` data-integer` : null}${optional(
    'data-min-count',
    field.minCount,
  )}${optional('data-max-count', field.maxCount)}`;
}

function fieldBlock(field: FormField, r: Render): Html {
  const { t } = r;
  const id = `f-${field.key}`;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const helpId = `${id}-help`;
  const hint = field.hint ? html`<p class="hint" id="${hintId}">${field.hint}</p>` : null;
  const help =
    field.type === 'file'
      ? html`<p class="hint" id="${helpId}">${t('hint.file', { types: FILE_TYPES })}</p>`
      : field.type === 'multi_select'
        ? html`<p class="hint" id="${helpId}">${t('hint.multiSelect')}</p>`
        : null;
  const describedBy = [hint ? hintId : null, help ? helpId : null, errorId].filter(Boolean).join(' ');
  const error = html`<p class="error" id="${errorId}" data-error></p>`;
  switch (field.type) {
    case 'note':
      return html`<div ${dataOf(field, ' note')}>
        <p class="note-text">${field.label}</p>
        ${hint}
      </div> `;
    case 'calculate':
      // Computed in the page as answers change and by the service, which stores it: never sent.
      return html`<div ${dataOf(field, ' calculated')}${field.label ? null : html` data-silent`}>
        ${field.label ? html`<p class="calculated-label" id="${id}-label">${field.label}</p>` : null}
        ${hint}
        <output data-output${field.label ? html` aria-labelledby="${id}-label"` : null}></output>
      </div> `;
    case 'group':
      return html`<fieldset ${dataOf(field, ' group')}${hint ? html` aria-describedby="${hintId}"` : null}>
        <legend>${field.label}</legend>
        ${hint}
        <div class="fields">${(field.fields ?? []).map((inner) => fieldBlock(inner, r))}</div>
      </fieldset> `;
    case 'repeat':
      return html`<fieldset ${dataOf(field, ' repeat')} aria-describedby="${describedBy}">
        <legend>${field.label}${requiredMark(field, r)}</legend>
        ${hint}${error}
        <ol class="entries" data-entries></ol>
        <template data-template>
          <li class="entry" data-entry>
            <h3 class="entry-heading" data-entry-heading></h3>
            ${(field.fields ?? []).map((inner) => fieldBlock(inner, r))}
            <button type="button" class="secondary" data-remove>${t('repeat.remove')}</button>
          </li>
        </template>
        <p class="repeat-actions">
          <button type="button" class="secondary" data-add>${t('repeat.add')}</button>
          <span class="hint" data-full hidden>${t('repeat.full')}</span>
        </p>
      </fieldset> `;
    case 'text':
    case 'textarea':
    case 'number':
    case 'select':
    case 'multi_select':
    case 'date':
    case 'boolean':
    case 'location':
    case 'file':
      break;
  }
  if (GROUPED.includes(field.type)) {
    return html`<fieldset ${dataOf(field)} aria-describedby="${describedBy}">
      <legend>${field.label}${requiredMark(field, r)}</legend>
      ${hint}${help}${error} ${control(field, id, describedBy, r)}
    </fieldset> `;
  }
  return html`<div ${dataOf(field)}>
    <label for="${id}">${field.label}${requiredMark(field, r)}</label>
    ${hint}${help}${error} ${control(field, id, describedBy, r)}
  </div> `;
}

/** Where each field is: its type and the repeats holding it, outermost first (how expressions see it). */
export function placesOf(
  fields: FormField[],
  repeats: string[] = [],
  places: Record<string, { type: string; repeats: string[] }> = {},
) {
  for (const field of fields) {
    if (!Object.hasOwn(places, field.key)) places[field.key] = { type: field.type, repeats };
    if (field.fields)
      placesOf(field.fields, field.type === 'repeat' ? [...repeats, field.key] : repeats, places);
  }
  return places;
}

/**
 * The form's language to show: the first candidate (`?lang=`, then Accept-Language's tags by q) that
 * names one of the form's languages, by its exact tag (any case) or else by its primary subtag;
 * undefined when none does (the form's default then).
 */
export function chooseFormLanguage(
  languages: FormLanguage[],
  lang: string | undefined,
  acceptLanguage: string | undefined,
): string | undefined {
  const tags = [
    ...(lang ? [lang] : []),
    ...(acceptLanguage
      ? new Negotiator({ headers: { 'accept-language': acceptLanguage } })
          .languages()
          .filter((tag) => tag !== '*')
      : []),
  ];
  const codes = languages.map((language) => language.code);
  const primary = (tag: string) => tag.toLowerCase().split('-')[0];
  for (const tag of tags) {
    const exact = codes.find((code) => code.toLowerCase() === tag.toLowerCase());
    if (exact) return exact;
    const near = codes.find((code) => primary(code) === primary(tag));
    if (near) return near;
  }
  return undefined;
}

/** The form pages' service worker: under /f/ so that its scope covers every form page (form-worker.js). */
export const FORM_WORKER_PATH = '/f/form-worker.js';

/**
 * How long answers not sent and drafts stay on the device: it may be a shared phone, and they often
 * hold personal data. form.js deletes what is older when the page loads.
 */
const KEPT_DAYS = 30;

/**
 * The answers kept on this device: how many wait, which were refused, which a closed form turned away
 * (outbox-panel.js).
 */
const outboxPanel = (o: Translate) => html`<div class="outbox" data-outbox>
  <p role="status" data-outbox-count></p>
  <p class="hint" data-kept-for hidden>${o('keptFor', { days: KEPT_DAYS })}</p>
  <p data-outbox-actions hidden>
    <button type="button" class="secondary" data-send-now>${o('sendNow')}</button>
  </p>
  <section data-refused-answers hidden aria-labelledby="refused-heading">
    <h2 id="refused-heading">${o('refusedHeading')}</h2>
    <ul class="kept-answers refused" data-refused></ul>
  </section>
  <section data-closed-answers hidden aria-labelledby="closed-answers-heading">
    <h2 id="closed-answers-heading">${o('closedHeading')}</h2>
    <ul class="kept-answers" data-turned-away></ul>
  </section>
</div>`;

/** Links to the form in its other languages (`?lang=<code>`), each named in itself, the current one marked. */
function languageSwitch(current: string, languages: FormLanguage[], { t }: Render): Html | null {
  if (languages.length < 2) return null;
  return languageLinks(
    t('page.languages'),
    current,
    languages,
    (code) => `?lang=${encodeURIComponent(code)}`,
  );
}

/**
 * The respondent's page: every field, skip logic and checks in form.js, the server has the last word.
 * Answers are kept on the device until the server has them, so the page works without a connection.
 * The form's strings are in `form.language`; the page's own in that language when the pages speak it,
 * else in English (form.json, outbox.json; the scripts' from the embedded `#messages` block).
 */
export function formPage(form: PublicFormView, token: string): PageContent {
  const language = form.language ?? 'en';
  const locale = pageLocaleOf(language);
  const t = translator(locale, 'form');
  const o = translator(locale, 'outbox');
  const r: Render = { t };
  const closes = form.closesAt ? new Date(form.closesAt) : null;
  return {
    title: form.title,
    lang: language,
    dir: directionOf(language),
    scripts: ['common.js', 'answer-store.js', 'outbox.js', 'outbox-panel.js', 'form.js'],
    modules: ['form-expressions.js'],
    main: html`${languageSwitch(language, form.languages ?? [], r)}
      ${jsonBlock('messages', {
        locale,
        form: clientMessages(locale, 'form'),
        outbox: clientMessages(locale, 'outbox'),
      })}
      ${jsonBlock('form-places', placesOf(form.fields))} ${outboxPanel(o)}
      <form
        class="respondent"
        data-form="${token}"
        data-submit-url="/forms/public/${encodeURIComponent(token)}/submit"
        data-worker="${FORM_WORKER_PATH}"
        data-kept-days="${KEPT_DAYS}"
        data-locale="${locale}"
        novalidate
      >
        <h1>${form.title}</h1>
        ${form.description ? html`<p class="lead prose">${form.description}</p>` : null}
        ${closes ? html`<p class="hint">${markup(t, 'page.openUntil', { time: moment(closes, locale) })}</p>` : null}
        <noscript><p class="error">${t('page.needsJavaScript')}</p></noscript>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${form.fields.map((field) => fieldBlock(field, r))}
        <button type="submit" disabled data-ready>${t('page.send')}</button>
        <p class="hint" data-progress aria-live="polite"></p>
        <p class="hint" data-offline-ready hidden>${t('page.offlineReady')}</p>
      </form>
      <section class="thanks" data-thanks hidden tabindex="-1">
        <h1>${t('thanks.heading')}</h1>
        <p>${t('thanks.received', { title: form.title })}</p>
        <p><button type="button" class="secondary" data-another>${t('thanks.another')}</button></p>
      </section>
      <section class="thanks" data-saved hidden tabindex="-1">
        <h1>${t('saved.heading')}</h1>
        <p>${t('saved.text', { title: form.title })}</p>
        <p><button type="button" class="secondary" data-another>${t('saved.another')}</button></p>
      </section>
      <section class="notice" data-closed hidden tabindex="-1">
        <h1>${t('closed.heading')}</h1>
        <p>${t('closed.kept')}</p>
      </section>`,
  };
}

/** What the form's link shows instead when the form is unknown or unpublished (404) or closed (410). */
export function unavailableFormPage(status: 404 | 410, locale: Locale): PageContent {
  const t = translator(locale, 'form');
  return status === 404
    ? {
        title: t('unavailable.title'),
        lang: locale,
        main: notice(t('unavailable.heading'), t('unavailable.why'), t('unavailable.ask')),
      }
    : { title: t('gone.title'), lang: locale, main: notice(t('closed.heading'), t('gone.text')) };
}
