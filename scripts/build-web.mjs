// Bundles the browser viewer (web/) into dist/web/. Everything, sigma and
// graphology included, goes into one self-contained file: the viewer serves
// it from /assets/ under a strict CSP and never loads anything from a CDN.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');

await mkdir(out, { recursive: true });
await Promise.all([
  build({
    entryPoints: [join(root, 'web', 'viewer.ts')],
    outfile: join(out, 'viewer.js'),
    tsconfig: join(root, 'web', 'tsconfig.json'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  }),
  copyFile(join(root, 'web', 'viewer.css'), join(out, 'viewer.css')),
]);
