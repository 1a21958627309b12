import { describe, expect, it } from 'vitest';
import { html, raw } from './html.js';

describe('html templates', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const label = `<b onclick="x()">Tom & 'Jerry'</b>`;
    expect(html`<p title="${label}">${label}</p>`.text).toBe(
      '<p title="&lt;b onclick=&quot;x()&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/b&gt;">' +
        '&lt;b onclick=&quot;x()&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/b&gt;</p>',
    );
  });

  it('keeps markup built by html or raw as it is, joins lists and drops null, undefined and false', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${raw('<hr>')}${0}`.text).toBe(
      '<ul><li>&lt;a&gt;</li><li>b</li></ul><hr>0',
    );
  });
});
