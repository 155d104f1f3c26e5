import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { settings } from '../context.js';
import type { NoteGrep } from '../corpus/ports.js';

/** The ripgrep binary: ZK_MEMORY_RG, else the one shipped inside @vscode/ripgrep. */
export function rgPath(): string {
  const configured = settings().rgPath();
  if (configured) return configured;
  const require = createRequire(import.meta.url);
  return (require('@vscode/ripgrep') as { rgPath: string }).rgPath;
}

/**
 * What every ripgrep run over notes searches: the top-level `*.md` files of the root (the working
 * directory), hidden names and ignore files not applying, user config not read. Goes last.
 */
export const NOTE_FILES = ['--no-config', '--max-depth', '1', '--no-ignore', '--glob', '*.md', '--glob', '!.*', '--', '.'];

/** The note-finding port over ripgrep: one run lists the files holding a match. */
export const ripgrepNoteGrep: NoteGrep = {
  filesMatching(root, patterns, o) {
    // NUL-separated, so a file name holding a newline cannot pass for two names.
    const args = ['--files-with-matches', '--null', '--ignore-case', ...(o.fixed ? ['--fixed-strings'] : []), ...patterns.flatMap((p) => ['-e', p]), ...NOTE_FILES];
    const rg = spawnSync(rgPath(), args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    // 1 means "no match"; anything else (a missing binary, a crash) leaves the caller's fallback.
    if (rg.status !== 0 && rg.status !== 1) return undefined;
    return rg.stdout.split('\0').filter(Boolean).map((l) => path.basename(l));
  },
};
