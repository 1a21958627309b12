import { describe, expect, it } from 'vitest';
import { parseXml } from '../../../test/helpers/xml.js';
import {
  element,
  endTag,
  escapeAttribute,
  escapeText,
  startTag,
  XML_DECLARATION,
  xmlCharacters,
} from './xml.js';

describe('the XML writer', () => {
  it('escapes markup characters in text and keeps a carriage return', () => {
    expect(escapeText('a & b < c > d "e" \'f\' ]]> \r\n\t')).toBe(
      'a &amp; b &lt; c &gt; d "e" \'f\' ]]&gt; &#13;\n\t',
    );
  });

  it('escapes quotes, tabs and line breaks in attributes, which a parser would otherwise flatten', () => {
    expect(escapeAttribute('say "hi" & <go>\tnow\r\n')).toBe(
      'say &quot;hi&quot; &amp; &lt;go&gt;&#9;now&#13;&#10;',
    );
  });

  it('drops the characters XML 1.0 cannot carry, keeps everything else', () => {
    const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');
    expect(xmlCharacters(controls)).toBe('\t\n\r');
    expect(xmlCharacters('a\u007fb\u0085c')).toBe('a\u007fb\u0085c');
    expect(xmlCharacters('lone \ud800 and \udfff, pair 😀')).toBe('lone  and , pair 😀');
    expect(xmlCharacters('\ufffe\uffff\ufffd\ue000\ud7ff')).toBe('\ufffd\ue000\ud7ff');
    expect(escapeText('x\u0000y\u000bz')).toBe('xyz');
  });

  it('writes elements with attributes, skipping null ones, and children given singly or in arrays', () => {
    const markup = element(
      'result',
      { type: '1', missing: null, absent: undefined, count: 3 },
      element('title', {}, element('narrative', {}, 'A & B')),
      [element('indicator', { measure: '2' }), null, false, undefined],
      'tail <text>',
    );
    expect(markup.xml).toBe(
      '<result type="1" count="3"><title><narrative>A &amp; B</narrative></title>' +
        '<indicator measure="2"/>tail &lt;text&gt;</result>',
    );
    expect(element('empty', { a: '' }).xml).toBe('<empty a=""/>');
  });

  it('gives documents a strict parser reads back to the same text and attributes', () => {
    const hostile = 'Tom & "Jerry" <b>bold</b> ]]> \'q\' \u0001\u0008 tab\t cr\r lf\n é 😀 \ud800';
    const xml =
      XML_DECLARATION +
      startTag('root', { version: '2.03' }) +
      element('item', { label: hostile }, hostile).xml +
      endTag('root');
    const root = parseXml(xml);
    const expected = ['\u0001', '\u0008', '\ud800'].reduce((text, c) => text.replace(c, ''), hostile);
    expect(root.attributes).toEqual({ version: '2.03' });
    expect(root.children[0]!.attributes.label).toBe(expected);
    expect(root.children[0]!.text).toBe(expected);
  });
});
