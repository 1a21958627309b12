import { PLACE_MAX, TEXT_MAX, type FormField } from '../forms/index.js';
import { ACCEPTED_TYPES, MAX_FILE_SIZE } from '../../storage/file-storage.js';
import { html, type Html } from './html.js';
import { moment, type PageContent } from './layout.js';

export interface PublicFormView {
  title: string;
  description: string | null;
  fields: FormField[];
  closesAt: Date | string | null;
}

const ACCEPT = [...Object.keys(ACCEPTED_TYPES), '.pdf,.jpg,.jpeg,.png,.webp,.docx,.xlsx,.csv'].join(',');
const FILE_TYPES = Object.values(ACCEPTED_TYPES).join(', ');

const requiredMark = (field: FormField) =>
  field.required ? html` <span class="required">(required)</span>` : null;

/** The input(s) of one field; ids and names come from the key, which is `[a-z][a-z0-9_]*`. */
function control(field: FormField, id: string, describedBy: string): Html {
  // A location is answered by coordinates or by the place's name: form.js checks that one is there.
  const required = field.required && field.type !== 'location';
  const common = html`id="${id}" name="${field.key}"
  aria-describedby="${describedBy}"${required ? html` required` : null}`;
  switch (field.type) {
    case 'text':
      return html`<input type="text" ${common} maxlength="${TEXT_MAX.text}" />`;
    case 'textarea':
      return html`<textarea ${common} rows="4" maxlength="${TEXT_MAX.textarea}"></textarea>`;
    case 'number':
      return html`<input type="number" step="any" inputmode="decimal" ${common} />`;
    case 'date':
      return html`<input type="date" ${common} />`;
    case 'select':
      return html`<select ${common}>
        <option value="">Choose…</option>
        ${field.options!.map((option) => html`<option value="${option}">${option}</option> `)}
      </select>`;
    case 'file':
      return html`<input type="file" ${common} accept="${ACCEPT}" data-max-size="${MAX_FILE_SIZE}" />`;
    case 'multi_select':
      return html`${field.options!.map(
        (option, index) =>
          html`<label class="choice"
            ><input type="checkbox" name="${field.key}" value="${option}" id="${id}-${index}" />
            ${option}</label
          > `,
      )}`;
    case 'boolean':
      return html`<label class="choice"
          ><input type="radio" name="${field.key}" value="true" id="${id}" /> Yes</label
        >
        <label class="choice"
          ><input type="radio" name="${field.key}" value="false" id="${id}-no" /> No</label
        >`;
    case 'location':
      return html`<button type="button" class="secondary" data-locate>Use my current location</button>
        <p class="hint" data-location-status aria-live="polite"></p>
        <label for="${id}">Or type the name of the place</label>
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

function fieldBlock(field: FormField): Html {
  const id = `f-${field.key}`;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const hint =
    field.type === 'file'
      ? html`<p class="hint" id="${hintId}">${FILE_TYPES}; at most 10 MiB.</p>`
      : field.type === 'multi_select'
        ? html`<p class="hint" id="${hintId}">Choose all that apply.</p>`
        : null;
  const describedBy = hint ? `${hintId} ${errorId}` : errorId;
  const attributes = html`class="field" data-key="${field.key}" data-type="${field.type}"
  data-label="${field.label}"${field.required ? html` data-required` : null}${
    field.showIf
      ? html` data-show-field="${field.showIf.field}"
        data-show-equals="${JSON.stringify(field.showIf.equals)}"`
      : null
  }`;
  const error = html`<p class="error" id="${errorId}" data-error></p>`;
  if (GROUPED.includes(field.type)) {
    return html`<fieldset ${attributes} aria-describedby="${describedBy}">
      <legend>${field.label}${requiredMark(field)}</legend>
      ${hint}${error} ${control(field, id, describedBy)}
    </fieldset> `;
  }
  return html`<div ${attributes}>
    <label for="${id}">${field.label}${requiredMark(field)}</label>
    ${hint}${error} ${control(field, id, describedBy)}
  </div> `;
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
const outbox = html`<div class="outbox" data-outbox>
  <p role="status" data-outbox-count></p>
  <p class="hint" data-kept-for hidden>
    Answers not sent within ${KEPT_DAYS} days are deleted from this device.
  </p>
  <p data-outbox-actions hidden>
    <button type="button" class="secondary" data-send-now>Send now</button>
  </p>
  <section data-refused-answers hidden aria-labelledby="refused-heading">
    <h2 id="refused-heading">Answers to correct</h2>
    <ul class="kept-answers refused" data-refused></ul>
  </section>
  <section data-closed-answers hidden aria-labelledby="closed-answers-heading">
    <h2 id="closed-answers-heading">Answers not sent</h2>
    <ul class="kept-answers" data-turned-away></ul>
  </section>
</div>`;

/**
 * The respondent's page: every field, skip logic and checks in form.js, the server has the last word.
 * Answers are kept on the device until the server has them, so the page works without a connection.
 */
export function formPage(form: PublicFormView, token: string): PageContent {
  const closes = form.closesAt ? new Date(form.closesAt) : null;
  return {
    title: form.title,
    scripts: ['common.js', 'answer-store.js', 'outbox.js', 'outbox-panel.js', 'form.js'],
    main: html`${outbox}
      <form
        class="respondent"
        data-form="${token}"
        data-submit-url="/forms/public/${encodeURIComponent(token)}/submit"
        data-worker="${FORM_WORKER_PATH}"
        data-kept-days="${KEPT_DAYS}"
        novalidate
      >
        <h1>${form.title}</h1>
        ${form.description ? html`<p class="lead prose">${form.description}</p>` : null}
        ${closes ? html`<p class="hint">Open until ${moment(closes)}.</p>` : null}
        <noscript><p class="error">This form needs JavaScript to send your answers.</p></noscript>
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        ${form.fields.map(fieldBlock)}
        <button type="submit" disabled data-ready>Send</button>
        <p class="hint" data-progress aria-live="polite"></p>
        <p class="hint" data-offline-ready hidden>
          This form is kept on this device: it opens and takes answers without a connection too.
        </p>
      </form>
      <section class="thanks" data-thanks hidden tabindex="-1">
        <h1>Thank you</h1>
        <p>Your answers to “${form.title}” were received.</p>
        <p><button type="button" class="secondary" data-another>Send another response</button></p>
      </section>
      <section class="thanks" data-saved hidden tabindex="-1">
        <h1>Saved on this device</h1>
        <p>
          Your answers to “${form.title}” are kept here and will be sent as soon as there is a connection,
          even if you close this page.
        </p>
        <p><button type="button" class="secondary" data-another>Fill in another response</button></p>
      </section>
      <section class="notice" data-closed hidden tabindex="-1">
        <h1>This form is closed</h1>
        <p>
          It is no longer accepting responses. The answers it turned away are kept on this device, listed
          above, where each can be discarded.
        </p>
      </section>`,
  };
}
