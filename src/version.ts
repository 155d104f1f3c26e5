import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's version, as `--version` and the MCP server report it (from the nearest package.json above this module). */
export function version(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
