import escapeHtml from 'escape-html';

/** Markup that is already safe: built by `html` or `raw`, never from untrusted text. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

/**
 * Templates for the public pages: every interpolated value is escaped unless it is `Html`, so labels,
 * answers and narratives (untrusted) can never become markup. Lists are joined; null and false vanish.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new Html(out);
}

/** Trusted markup as is (our own constants only). */
export const raw = (text: string) => new Html(text);

/**
 * JSON for a `<script type="application/json">` block: data, never run (the page policy allows no
 * inline script), with `<` escaped so that no text in it can close the element.
 */
export const jsonBlock = (id: string, value: unknown) =>
  html`<script type="application/json" id="${id}">
    ${raw(JSON.stringify(value).replace(/</g, '\\u003c'))}
  </script>`;
