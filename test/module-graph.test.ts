import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The module order of .dependency-cruiser.cjs (docs/architecture.md, "Module order") is only worth something if its
 * rules fail on what they forbid: these tests cruise small source trees written here, with the real
 * configuration, and expect exactly the violations each tree holds.
 */
const roots: string[] = [];

afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const FIXTURE_TSCONFIG = {
  compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
};
const projectRoot = path.resolve(import.meta.dirname, '..');

/**
 * Cruises `src` under `root` as `npm run lint` does, with the real configuration, in this process: the
 * command line would load TypeScript again for each tree (about 8 s a test on a busy machine). The file
 * runs isolated (vitest.config.ts), so changing the working directory touches no other file's tests.
 */
async function cruiseSrc(root: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(path.join(projectRoot, '.dependency-cruiser.cjs'));
  const before = process.cwd();
  process.chdir(root);
  try {
    const tsConfig = extractTSConfig(path.join(root, 'tsconfig.json'));
    const { output } = await cruise(
      ['src'],
      { ...options, validate: true, outputType: 'json' },
      {},
      { tsConfig },
    );
    return JSON.parse(output as string) as ICruiseResult;
  } finally {
    process.chdir(before);
  }
}

/** Writes `files` (path under the root -> source) and cruises `src` there. */
async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'module-graph-'));
  roots.push(root);
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), source);
  }
  await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify(FIXTURE_TSCONFIG));
  const result = await cruiseSrc(root);
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('the module graph rules', () => {
  it('pass on imports that go down the order', async () => {
    expect(
      await violationsOf({
        'src/lib/dates.ts': 'export const day = 1;\n',
        'src/http/errors.ts': "import { day } from '../lib/dates.js';\nexport const e = day;\n",
        'src/modules/orgs/orgs.repo.ts': "import { e } from '../../http/errors.js';\nexport const o = e;\n",
        'src/modules/orgs/orgs.tables.ts': 'export const organizations = 1;\n',
        'src/modules/orgs/index.ts': "export { o } from './orgs.repo.js';\n",
        'src/modules/projects/projects.repo.ts':
          "import { o } from '../orgs/index.js';\nimport { organizations } from '../orgs/orgs.tables.js';\n" +
          'export const p = o + organizations;\n',
        'src/modules/projects/index.ts': "export { p } from './projects.repo.js';\n",
        'src/app.ts': "import { p } from './modules/projects/index.js';\nexport const a = p;\n",
      }),
    ).toEqual([]);
  });

  it('fail on an import cycle between two modules', async () => {
    const found = await violationsOf({
      'src/modules/forms/forms.service.ts':
        "import { p } from '../periods/periods.service.js';\nexport const f = p;\n",
      'src/modules/periods/periods.service.ts':
        "import { f } from '../forms/forms.service.js';\nexport const p = f;\n",
    });
    expect(found).toContain(
      'no-cycles: src/modules/forms/forms.service.ts -> src/modules/periods/periods.service.ts',
    );
    // The half of the cycle that points up the order is also an upward import.
    expect(found).toContain(
      'layer-7-imports-upward: src/modules/periods/periods.service.ts -> src/modules/forms/forms.service.ts',
    );
  });

  it('fail on a type-only cycle inside one module', async () => {
    expect(
      await violationsOf({
        'src/modules/orgs/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
        'src/modules/orgs/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
      }),
    ).toEqual(['no-cycles: src/modules/orgs/a.ts -> src/modules/orgs/b.ts']);
  });

  it('fail on an owner importing a module above it, and on a module of its own layer', async () => {
    expect(
      await violationsOf({
        'src/modules/indicator-reports/index.ts': 'export const r = 1;\n',
        'src/modules/periods/index.ts':
          "import { r } from '../indicator-reports/index.js';\nexport const p = r;\n",
        'src/modules/indicators/indicators.service.ts':
          "import { p } from '../periods/index.js';\nexport const i = p;\n",
      }),
    ).toEqual([
      'layer-7-imports-upward: src/modules/indicators/indicators.service.ts -> src/modules/periods/index.ts',
      'layer-7-imports-upward: src/modules/periods/index.ts -> src/modules/indicator-reports/index.ts',
    ]);
  });

  it('fail on infrastructure importing a module, lib importing ours, and an unknown module', async () => {
    expect(
      await violationsOf({
        'src/modules/auth/index.ts': 'export const u = 1;\n',
        'src/http/access.ts': "import { u } from '../modules/auth/index.js';\nexport const a = u;\n",
        'src/db/client.ts': 'export const d = 1;\n',
        'src/lib/text.ts': "import { d } from '../db/client.js';\nexport const t = d;\n",
        'src/modules/gadgets/gadgets.repo.ts':
          "import { d } from '../../db/client.js';\nexport const g = d;\n",
      }),
    ).toEqual([
      'infrastructure-imports-no-module: src/http/access.ts -> src/modules/auth/index.ts',
      'lib-imports-nothing-of-ours: src/lib/text.ts -> src/db/client.ts',
      'modules-are-known: src/modules/gadgets/gadgets.repo.ts -> src/db/client.ts',
    ]);
  });

  it("fail on an import of another module's files other than its index.ts and its tables", async () => {
    expect(
      await violationsOf({
        'src/modules/orgs/orgs.repo.ts': 'export const o = 1;\n',
        'src/modules/orgs/orgs.tables.ts': 'export const organizations = 1;\n',
        'src/modules/orgs/index.ts': "export { o } from './orgs.repo.js';\n",
        'src/modules/projects/projects.repo.ts':
          "import { organizations } from '../orgs/orgs.tables.js';\nexport const r = organizations;\n",
        'src/modules/projects/projects.service.ts':
          "import { o } from '../orgs/orgs.repo.js';\nimport { r } from './projects.repo.js';\n" +
          'export const s = o + r;\n',
        'src/modules/projects/projects.routes.ts':
          "import { o } from '../orgs/index.js';\nimport { s } from './projects.service.js';\n" +
          'export const routes = o + s;\n',
        'src/modules/projects/index.ts': "export { routes } from './projects.routes.js';\n",
        'src/app.ts':
          "import { routes } from './modules/projects/index.js';\nimport { s } from './modules/projects/projects.service.js';\n" +
          'export const a = routes + s;\n',
        'src/worker.ts':
          "import { organizations } from './modules/orgs/orgs.tables.js';\nexport const w = organizations;\n",
      }),
    ).toEqual([
      'entry-points-import-public-surfaces: src/app.ts -> src/modules/projects/projects.service.ts',
      'modules-import-public-surfaces: src/modules/projects/projects.service.ts -> src/modules/orgs/orgs.repo.ts',
    ]);
  });

  it('fail on the error catalogue importing HTTP or a module, and pass on what it may import', async () => {
    expect(
      await violationsOf({
        'src/lib/text.ts': 'export const t = 1;\n',
        'src/db/errors.ts': 'export const pg = 1;\n',
        'src/db/client.ts': 'export const d = 1;\n',
        'src/http/errors.ts': 'export const h = 1;\n',
        'src/modules/auth/auth.repo.ts': 'export const u = 1;\n',
        'src/errors/catalogue.ts': "import { t } from '../lib/text.js';\nexport const c = t;\n",
        'src/errors/refusals.ts':
          "import { c } from './catalogue.js';\nimport { pg } from '../db/errors.js';\n" +
          "import { d } from '../db/client.js';\nimport { h } from '../http/errors.js';\n" +
          "import { u } from '../modules/auth/auth.repo.js';\nexport const r = c + pg + d + h + u;\n",
      }),
    ).toEqual([
      'entry-points-import-public-surfaces: src/errors/refusals.ts -> src/modules/auth/auth.repo.ts',
      'error-catalogue-knows-no-http: src/errors/refusals.ts -> src/db/client.ts',
      'error-catalogue-knows-no-http: src/errors/refusals.ts -> src/http/errors.ts',
      'error-catalogue-knows-no-http: src/errors/refusals.ts -> src/modules/auth/auth.repo.ts',
      'infrastructure-imports-no-module: src/errors/refusals.ts -> src/modules/auth/auth.repo.ts',
    ]);
  });

  it('pass on the service itself (what `npm run lint` checks)', async () => {
    const result = await cruiseSrc(projectRoot);
    expect(result.summary.violations).toEqual([]);
  });
});
