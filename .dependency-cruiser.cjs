/**
 * The module graph (docs/architecture.md, "Module order"): a module imports only modules below it, so a change
 * can break only what sits above it. `npm run lint` runs these rules; test/module-graph.test.ts
 * checks that they catch a cycle and an upward import.
 *
 * Layers, lowest first. A module may import any module of a lower layer, never one of its own
 * layer or above. Infrastructure (src/lib, src/errors, src/db, src/http, src/storage, config, context)
 * imports no module at all.
 */
const LAYERS = [
  ['mail', 'privacy', 'idempotency'],
  ['auth'],
  ['orgs'],
  ['donors', 'webhooks'],
  ['programs'],
  ['projects'],
  ['feed', 'files', 'results'],
  ['members', 'periods', 'indicators', 'budget', 'activities'],
  ['quality'],
  ['indicator-reports'],
  ['forms', 'progress', 'imports'],
  ['reports', 'dashboard', 'iati', 'reminders'],
  ['pages', 'health'],
];

const modulePath = (names) => `^src/modules/(${names.join('|')})/`;

/** A module's public surface: its index.ts, and its tables (read-only joins across modules). */
const SURFACE = '^src/modules/[^/]+/(index|[^/]+\\.tables)\\.ts$';

const upward = LAYERS.map((layer, index) => ({
  name: `layer-${index}-imports-upward`,
  comment: `${layer.join(', ')} may import only modules of lower layers (docs/architecture.md, "Module order")`,
  severity: 'error',
  from: { path: modulePath(layer) },
  to: {
    path: modulePath(LAYERS.slice(index).flat()),
    pathNot: '^src/modules/$1/',
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycle, between modules or within one (type-only imports count).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'modules-import-public-surfaces',
      comment:
        "A module imports of another only its index.ts (functions and types it offers) or its tables (for joins); writes go through the owner's functions.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: `^src/modules/$1/|${SURFACE}` },
    },
    {
      name: 'entry-points-import-public-surfaces',
      comment:
        'Files outside src/modules import a module through its index.ts (or its tables), like modules do.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/', pathNot: SURFACE },
    },
    {
      name: 'infrastructure-imports-no-module',
      comment:
        'src/errors, src/db, src/http, src/storage, config and context serve every module and know none.',
      severity: 'error',
      from: { path: '^src/(errors|db|http|storage)/|^src/(config|context)\\.ts$' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'lib-imports-nothing-of-ours',
      comment: 'src/lib holds pure helpers: no HTTP, no database, no configuration, no module.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'error-catalogue-knows-no-http',
      comment:
        'src/errors is what services throw: it imports src/lib and the reading of database errors (src/db/errors.ts), never HTTP.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: '^src/(errors|lib)/|^src/db/errors\\.ts$' },
    },
    {
      name: 'only-the-composition-root-imports-entry-points',
      comment:
        'app.ts, server.ts, worker.ts, jobs.ts, migrate.ts, upkeep.ts, rotate-key.ts, admin-create.ts, backup.ts, restore.ts and files-migrate.ts assemble the service; nothing imports them.',
      severity: 'error',
      from: { path: '^src/(modules|errors|db|http|lib|storage|backups)/' },
      to: {
        path: '^src/(app|server|worker|jobs|migrate|upkeep|rotate-key|admin-create|backup|restore|files-migrate)\\.ts$',
      },
    },
    {
      name: 'modules-are-known',
      comment: 'Every folder under src/modules has a place in LAYERS.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: modulePath(LAYERS.flat()) },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    reporterOptions: {
      archi: {
        collapsePattern: '^src/(modules/[^/]+|errors|db|http|lib|storage)/|^src/[^/]+\\.ts$',
      },
    },
  },
};
