import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of this package (the nearest one above this module holding package.json), whether
 * the module runs from src/ or from dist/: where its bin/ and its built dist/web/ are.
 */
export function packageDir(): string | undefined {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The package's version, as `--version` and the MCP server report it. */
export function version(): string {
  const dir = packageDir();
  return dir ? (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version : 'unknown';
}

/** The tool's command line file, `bin/zk-memory.js`, as servers and git's merge drivers are started with. */
export function binPath(): string {
  return path.join(packageDir() ?? '.', 'bin', 'zk-memory.js');
}
