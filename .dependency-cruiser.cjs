/**
 * The layers of src/ and the arrows allowed between them (docs/architecture.md), checked by
 * test/architecture.test.ts as part of `npm test`. Type-only imports count like any other. Also: no
 * two rooms or sub-rooms (folders) import each other, surfaces reach the domain through the
 * library, and the third-party packages that touch the outside stay in the modules that wrap them.
 */
const surfaces = '^src/(cli|cli\\.ts|commands|mcp|server|viewer)';
const operations = '^src/operations/';
const library = '^src/api/';
const pipelines = '^src/(pipelines|judge|ingest|tend|sync)/';
const search = '^src/search/';
const domain = '^src/corpus/';
const adapters = '^src/(adapters|llm)/';
const text = '^src/text/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules that import each other, even for types only, are one module in disguise.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-no-layer',
      severity: 'error',
      comment: 'The domain (src/corpus/) uses what lies outside it through its ports only.',
      from: { path: domain },
      to: { path: '^src/(?!corpus/|context\\.ts|errors\\.ts|hints\\.ts|settings\\.ts|ports\\.ts)' },
    },
    {
      name: 'adapters-import-no-layer',
      severity: 'error',
      comment: 'Adapters implement ports; they know nothing of the layers that use them.',
      from: { path: adapters },
      to: { path: '^src/(api|pipelines|judge|ingest|tend|sync|search|text|operations|cli|commands|mcp|server|viewer)/' },
    },
    {
      name: 'search-imports-no-pipeline',
      severity: 'error',
      comment: 'Search serves the pipelines and the library, never the other way round.',
      from: { path: search },
      to: { path: '^src/(api|pipelines|judge|ingest|tend|sync|text|operations|cli|commands|mcp|server|viewer)/' },
    },
    {
      name: 'pipelines-import-no-library',
      severity: 'error',
      comment: 'Pipelines are called by the library and the surfaces.',
      from: { path: pipelines },
      to: { path: '^src/(api|text|operations|cli|commands|mcp|server|viewer)/' },
    },
    {
      name: 'operations-serve-the-surfaces',
      severity: 'error',
      comment: 'The operations both surfaces render (src/operations/) sit below them: they know no surface, no parser and no protocol.',
      from: { path: operations },
      to: { path: `${surfaces}|(^|node_modules/)(commander|@modelcontextprotocol/)` },
    },
    {
      name: 'operations-call-the-library',
      severity: 'error',
      comment: 'An operation calls src/api/ and words its answer with src/text/; the layers below the library are reached through it.',
      from: { path: operations },
      to: { path: '^src/(corpus|search|pipelines|judge|ingest|tend|sync|adapters|llm)/' },
    },
    {
      name: 'library-imports-no-surface',
      severity: 'error',
      comment: 'The library (src/api/) answers objects; presentation and the surfaces sit above it.',
      from: { path: library },
      to: { path: '^src/(text|operations|cli|commands|mcp|server|viewer)/|^src/cli\\.ts' },
    },
    {
      name: 'text-serves-surfaces-only',
      severity: 'error',
      comment: 'Presentation is for the surfaces and the operations they render.',
      from: { pathNot: `${surfaces}|${text}|${operations}` },
      to: { path: text },
    },
    {
      name: 'server-runs-no-cli',
      severity: 'error',
      comment: 'The resident server calls the library; what it shares with the command line lies below both (src/command-line/).',
      from: { path: '^src/server/' },
      to: { path: '^src/(cli/|cli\\.ts|commands/)' },
    },
    {
      name: 'command-line-below-surfaces',
      severity: 'error',
      comment: 'What the command line and the server share sits below both.',
      from: { path: '^src/command-line/' },
      to: { path: surfaces },
    },
    {
      name: 'viewer-reads-through-library',
      severity: 'error',
      comment: 'The viewer reads the corpus through the library (src/api/), never the layers below it.',
      from: { path: '^src/viewer/' },
      to: { path: '^src/(corpus|search|pipelines|judge|ingest|tend|sync|adapters|llm)/' },
    },
    {
      name: 'commander-in-the-cli-only',
      severity: 'error',
      comment: 'The command-line parser belongs to the command line.',
      from: { pathNot: '^src/(cli|cli\\.ts|commands)' },
      to: { path: 'node_modules/commander/' },
    },
    {
      name: 'no-room-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'Rooms and sub-rooms (folders) that import each other are one room in disguise.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'mcp-imports-no-server',
      severity: 'error',
      comment: 'The server hosts MCP sessions; what a session needs of the server its host hands in.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/server/' },
    },
    {
      name: 'surfaces-reach-the-domain-through-the-library',
      severity: 'error',
      comment: 'A surface calls src/api/, which speaks for the domain.',
      from: { path: surfaces },
      to: { path: domain },
    },
    {
      name: 'lancedb-in-its-adapter-only',
      severity: 'error',
      comment: 'LanceDB is reached through the search index modules that wrap it.',
      from: { pathNot: '^src/search/(lance|ivf-build)\\.ts$|^src/process\\.ts$' },
      to: { path: 'node_modules/@lancedb/' },
    },
    {
      name: 'mcp-sdk-in-mcp-only',
      severity: 'error',
      comment:
        "The MCP SDK belongs to the MCP surface and the server that serves it over HTTP (with OAuth); the OAuth store keeps clients in the SDK's shape, a type only.",
      from: { pathNot: '^src/mcp/|^src/server/(mcp-requests|oauth)\\.ts$|^src/api/oauth-store\\.ts$' },
      to: { path: '(^|node_modules/)@modelcontextprotocol/' },
    },
    {
      name: 'child-processes-in-adapters-only',
      severity: 'error',
      comment: "Starting another program is an adapter's job (src/adapters/processes.ts, git.ts, ripgrep.ts).",
      from: { pathNot: adapters },
      to: { dependencyTypes: ['core'], path: '^(node:)?child_process$' },
    },
    {
      name: 'programs-through-child-process-only',
      severity: 'error',
      comment: 'Other programs, git among them, run through node:child_process in the adapters: one way, not two (execa is for tests).',
      from: {},
      to: { path: 'node_modules/execa/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The third-party packages the rules above confine (the MCP SDK's subpaths resolve by name only).
    includeOnly: ['^src/', '(^|node_modules/)(commander|@lancedb/lancedb|@modelcontextprotocol/(sdk|server)|execa)(/|$)', '^(node:)?child_process$'],
    tsPreCompilationDeps: true,
    parser: 'swc',
    moduleSystems: ['es6'],
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
