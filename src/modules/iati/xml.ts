/**
 * A small XML 1.0 writer for documents written a piece at a time. The IATI export builds one
 * `iati-activity` as markup and sends it before reading the next projects, so the document is never
 * held whole; a streaming library would add a dependency for what escaping and a few tags do.
 */

/** Markup that is already escaped. Any plain string given as a child is text, and is escaped. */
export class Markup {
  constructor(readonly xml: string) {}
}

export type Attributes = Readonly<Record<string, string | number | null | undefined>>;
/** null, undefined and false stand for nothing, so optional parts can be written inline. */
export type Child = Markup | string | null | undefined | false;

// XML 1.0 `Char`: tab, line feed, carriage return, and the rest of Unicode but the C0 controls, lone
// surrogates (matched one by one under the u flag) and U+FFFE, U+FFFF. Those cannot be written at all,
// not even as character references, so they are dropped.
const NOT_XML_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
// In an attribute a parser turns tab and line breaks into spaces; references keep them as they were.
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
};

/**
 * Text that needs nothing done in character data or an attribute: printable ASCII but `&<>"` (codes, dates,
 * numbers and most names). Checked first, without the u flag: the Unicode pass and the escapes cost a
 * regular-expression replace each, and an export writes a few million values (a quarter of its CPU time).
 */
const NEEDS_WORK = /[^\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x7e]/;

/** The text with every character XML 1.0 cannot carry removed. */
export const xmlCharacters = (text: string): string => text.replace(NOT_XML_CHARACTER, '');

/** Character data: `&`, `<` and `>` escaped (`>` too, so `]]>` never appears), a carriage return kept. */
export const escapeText = (text: string): string =>
  NEEDS_WORK.test(text) ? xmlCharacters(text).replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!) : text;

/** An attribute value for double quotes: also `"`, and tab and line breaks as references. */
export const escapeAttribute = (text: string): string =>
  NEEDS_WORK.test(text) ? xmlCharacters(text).replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!) : text;

function attributesOf(attributes: Attributes): string {
  let written = '';
  for (const name of Object.keys(attributes)) {
    const value = attributes[name];
    if (value !== null && value !== undefined) written += ` ${name}="${escapeAttribute(String(value))}"`;
  }
  return written;
}

/** A start tag alone, for the document element whose children are sent one by one. */
export const startTag = (name: string, attributes: Attributes = {}): string =>
  `<${name}${attributesOf(attributes)}>`;

export const endTag = (name: string): string => `</${name}>`;

/**
 * An element; names are the caller's constants, never data. Attributes whose value is null or undefined
 * are left out; children may be given singly or in arrays. Without children it is written `<name/>`.
 */
export function element(name: string, attributes: Attributes = {}, ...children: (Child | Child[])[]): Markup {
  let content = '';
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    content += child instanceof Markup ? child.xml : escapeText(child);
  }
  const start = `<${name}${attributesOf(attributes)}`;
  return new Markup(content === '' ? `${start}/>` : `${start}>${content}</${name}>`);
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
