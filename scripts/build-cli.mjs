// Bundles the command line's first step (src/server/forward.ts, compiled into dist/src/ by tsc)
// into one file, dist/forward.js. Every call that a resident server answers loads only this: as
// a dozen separate modules, loading it took twice as long, a good part of such a call's own time.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'dist', 'src', 'server', 'forward.js')],
  outfile: join(root, 'dist', 'forward.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});
