// Bundles the command line's first step (src/server/forward.ts, compiled into dist/src/ by tsc)
// into one file beside it, dist/src/server/forward.bundle.js. Every call that a resident server
// answers loads only this: as a dozen separate modules, loading it took twice as long, a good
// part of such a call's own time. The errors module stays the one the rest of the tool loads, so
// an error made here (bad input read from stdin, say) is known as the tool's there.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = join(root, 'dist', 'src', 'server');
const errors = join(root, 'dist', 'src', 'errors.js');

/** Every import of the errors module, from any folder, left to the one module beside the bundle's. */
const sharedErrors = {
  name: 'shared-errors',
  setup(b) {
    b.onResolve({ filter: /errors\.js$/ }, (args) => (resolve(args.resolveDir, args.path) === errors ? { path: '../errors.js', external: true } : undefined));
  },
};

const processes = join(root, 'dist', 'src', 'adapters', 'processes.js');

/**
 * The adapter that starts other programs, left out too: only a call that starts a server loads it
 * (and node:child_process with it), as the module it is, not every call that a server answers.
 */
const processesApart = {
  name: 'processes-apart',
  setup(b) {
    b.onResolve({ filter: /processes\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === processes ? { path: '../adapters/processes.js', external: true } : undefined,
    );
  },
};

await build({
  entryPoints: [join(server, 'forward.js')],
  outfile: join(server, 'forward.bundle.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [sharedErrors, processesApart],
});
