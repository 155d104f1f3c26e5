/**
 * The layers of src/ and the arrows allowed between them (docs/architecture.md), checked by
 * `npm run check:layers` as part of `npm test`. Type-only imports count like any other.
 */
const surfaces = '^src/(cli|cli\\.ts|commands|mcp|server|viewer)';
const library = '^src/api/';
const pipelines = '^src/(pipelines|judge|ingest|tend|sync)/';
const search = '^src/search/';
const domain = '^src/corpus/';
const adapters = '^src/(adapters|llm)/';
const views = '^src/views/';

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules that import each other, even for types only, are one module in disguise.', from: {}, to: { circular: true } },
    { name: 'domain-imports-no-layer', severity: 'error', comment: 'The domain (src/corpus/) uses what lies outside it through its ports only.', from: { path: domain }, to: { path: '^src/(?!corpus/|context\\.ts|errors\\.ts|hints\\.ts|settings\\.ts|ports\\.ts)' } },
    { name: 'adapters-import-no-layer', severity: 'error', comment: 'Adapters implement ports; they know nothing of the layers that use them.', from: { path: adapters }, to: { path: '^src/(api|pipelines|judge|ingest|tend|sync|search|views|cli|commands|mcp|server|viewer)/' } },
    { name: 'search-imports-no-pipeline', severity: 'error', comment: 'Search serves the pipelines and the library, never the other way round.', from: { path: search }, to: { path: '^src/(api|pipelines|judge|ingest|tend|sync|views|cli|commands|mcp|server|viewer)/' } },
    { name: 'pipelines-import-no-library', severity: 'error', comment: 'Pipelines are called by the library and the surfaces.', from: { path: pipelines }, to: { path: '^src/(api|views|cli|commands|mcp|server|viewer)/' } },
    { name: 'library-imports-no-surface', severity: 'error', comment: 'The library (src/api/) answers objects; presentation and the surfaces sit above it.', from: { path: library }, to: { path: '^src/(views|cli|commands|mcp|server|viewer)/|^src/cli\\.ts' } },
    { name: 'views-serve-surfaces-only', severity: 'error', comment: 'Presentation is for the surfaces.', from: { pathNot: `${surfaces}|${views}` }, to: { path: views } },
    { name: 'server-runs-no-cli', severity: 'error', comment: 'The resident server calls the library; what it shares with the command line lies below both (src/invocation/).', from: { path: '^src/server/' }, to: { path: '^src/(cli/|cli\\.ts|commands/)' } },
    { name: 'invocation-below-surfaces', severity: 'error', comment: 'What the command line and the server share sits below both.', from: { path: '^src/invocation/' }, to: { path: surfaces } },
    { name: 'viewer-reads-through-library', severity: 'error', comment: 'The viewer reads the corpus through the library (src/api/), never the layers below it.', from: { path: '^src/viewer/' }, to: { path: '^src/(corpus|search|pipelines|judge|ingest|tend|sync|adapters|llm)/' } },
    { name: 'commander-in-the-cli-only', severity: 'error', comment: 'The command-line parser belongs to the command line.', from: { pathNot: '^src/(cli|cli\\.ts|commands)' }, to: { path: 'node_modules/commander/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ['^src/', 'node_modules/commander/'],
    tsPreCompilationDeps: true,
    parser: 'swc',
    moduleSystems: ['es6'],
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
