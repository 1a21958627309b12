/**
 * What users read states each rule itself. The README, docs/ and the served OpenAPI document never send a
 * reader to files they cannot open (the project's own specification, SPEC.md and DECISIONS.md) or to the
 * numbers of the project's issues ("issue 22", "(#22)").
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call } from './helpers/http.js';

const ROOT = path.resolve(import.meta.dirname, '..');

const CITATIONS: RegExp[] = [
  /SPEC\.md/g,
  /DECISIONS/g,
  /\bissues? #?\d+/gi,
  // `#12` in prose: not an HTML entity (&#39;), a URL's fragment or a JSON pointer (#/components).
  /(?<![\w&/#])#\d+\b/g,
];
const HASH_NUMBER = CITATIONS[3]!;

/** Each citation in `text`, as `where: the citation` with its line when the text has several. */
function citations(where: string, text: string, patterns = CITATIONS): string[] {
  return patterns.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => {
      const line = text.slice(0, match.index).split('\n').length;
      return text.includes('\n') ? `${where}:${line}: ${match[0]}` : `${where}: ${match[0]}`;
    }),
  );
}

/** README.md and every Markdown file under docs/. */
function userDocs(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs.sort()];
}

/** Every string of a JSON document with its JSON Pointer; `$ref`s and `pattern`s are not text. */
function strings(node: unknown, pointer = ''): { pointer: string; key: string; text: string }[] {
  if (typeof node === 'string') return [{ pointer, key: pointer.split('/').pop()!, text: node }];
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' || key === 'pattern'
      ? []
      : strings(value, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
  );
}

/** `#12` counts only in prose: descriptions, summaries and titles (an example value may hold one). */
const PROSE = new Set(['description', 'summary', 'title']);

describe('citations of the contract files and issue numbers', () => {
  it('are recognized in prose, and URLs, entities and JSON pointers are not taken for them', () => {
    const text = [
      'Assembly (SPEC.md "Assembly rules", DECISIONS.md section 11).',
      'Since issue 20, and issues 22 and 23; see (#36) and Issue #37.',
      'Not these: &#39;, #/components/schemas, https://github.com/a/b/issues/6241, page#12, ## 2.',
    ].join('\n');
    expect(citations('sample', text)).toEqual([
      'sample:1: SPEC.md',
      'sample:1: DECISIONS',
      'sample:2: issue 20',
      'sample:2: issues 22',
      'sample:2: Issue #37',
      'sample:2: #36',
      'sample:2: #37',
    ]);
  });

  it('appear nowhere in the README or docs/', () => {
    const files = userDocs();
    expect(files).toContain('docs/api.md');
    const found = files.flatMap((file) => citations(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  describe('in the OpenAPI document', () => {
    let t: TestApp;
    let doc: unknown;
    beforeAll(async () => {
      t = await buildTestApp();
      doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
    });
    afterAll(() => t.close());

    it('appear in no description, summary, title or other text', () => {
      const texts = strings(doc);
      expect(texts.length).toBeGreaterThan(1000);
      const found = texts.flatMap(({ pointer, key, text }) =>
        citations(
          `openapi ${pointer}`,
          text,
          PROSE.has(key) ? CITATIONS : CITATIONS.filter((p) => p !== HASH_NUMBER),
        ),
      );
      expect(found).toEqual([]);
    });
  });
});
