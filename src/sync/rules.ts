import fs from 'node:fs';
import path from 'node:path';
import { git } from '../adapters/git.js';
import type { WorkTree } from '../adapters/git.js';
import { recordChange } from '../context.js';
import { binPath } from '../version.js';
import { replaceDerivedFile } from '../corpus/files/files.js';
import { syncDir } from './state.js';

// The merge rules git needs in a clone for notes to merge cleanly (docs/hosts.md): a
// `.gitattributes` in the corpus root naming the driver for notes, archived notes and the trace,
// and the drivers themselves in the clone's config (a driver is never taken from a committed file).

const ATTRIBUTES = ['/*.md merge=zk-memory', '/.archive/*.md merge=zk-memory', '/.zk/trace.jsonl merge=zk-memory-trace'];
const HEADER = '# zk-memory: notes and the trace merge with the note-aware driver (zk-memory merge-driver)';

/** The tool's own command line, for git to run: this Node and this package's bin. */
const selfCommand = () => `${shellQuote(process.execPath)} ${shellQuote(binPath())}`;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The drivers of the clone's config, by name (gitattributes(5): base, ours, theirs). Never `%P`:
 * git puts the file's path into the shell command unquoted, and a note's name comes from any host
 * that pushes (`$(…).md` would run); so the trace has a driver of its own instead.
 */
export function driverCommands(): Record<'zk-memory' | 'zk-memory-trace', string> {
  const self = selfCommand();
  return { 'zk-memory': `${self} merge-driver %O %A %B`, 'zk-memory-trace': `${self} merge-driver --trace %O %A %B` };
}

/** Add the attribute lines `.gitattributes` lacks; lines someone wrote stay. Answers whether it changed. */
function ensureAttributes(root: string): boolean {
  const file = path.join(root, '.gitattributes');
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (st && !st.isFile()) return false;
  const current = st ? fs.readFileSync(file, 'utf8') : '';
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim().replace(/\s+/g, ' ')));
  const missing = ATTRIBUTES.filter((l) => !have.has(l));
  if (!missing.length) return false;
  const lead = current && !current.endsWith('\n') ? '\n' : '';
  const header = have.has(HEADER) ? [] : [HEADER];
  fs.appendFileSync(file, `${lead}${[...header, ...missing].join('\n')}\n`);
  recordChange({ path: file, what: st ? 'appended' : 'created' });
  return true;
}

/** A rule's pattern under the corpus folder `prefix` (its glob characters escaped), C-quoted when it holds a space, a quote or a control character. */
function patternUnder(prefix: string, pattern: string): string {
  const p = `/${prefix.replace(/[*?[\\]/g, (c) => `\\${c}`)}${pattern.slice(1)}`;
  if (!/[\s"\\\x00-\x1f]/.test(p)) return p;
  return `"${p.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\x00-\x1f]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)}"`;
}

/**
 * The rules as the lowest-precedence attributes file of git (core.attributesFile, for the merges
 * and checks of a sync only), with patterns from the top of the repository: a path that the
 * committed `.gitattributes` leaves unspecified (the remote dropped the rules) still merges with
 * the tool's driver, and the next sync writes the rules back. Answers the file's path.
 */
export function writeFallbackAttributes(root: string, prefix: string): string {
  const file = path.join(syncDir(root), 'attributes');
  const lines = ATTRIBUTES.map((line) => {
    const [pattern, attr] = line.split(' ');
    return `${patternUnder(prefix, pattern)} ${attr}`;
  });
  replaceDerivedFile(file, `${lines.join('\n')}\n`);
  return file;
}

export const DRIVER_NAMES = { 'zk-memory': 'zk-memory notes', 'zk-memory-trace': 'zk-memory trace' } as const;

/** Install the rules in the clone holding `root`: the attributes file and the drivers in its config. */
export async function installMergeRules(root: string, tree: WorkTree): Promise<void> {
  ensureAttributes(root);
  for (const [name, command] of Object.entries(driverCommands())) {
    const have = (await git(tree.top, ['config', '--local', '--get', `merge.${name}.driver`])).stdout.trim();
    if (have === command) continue;
    await git(tree.top, ['config', '--local', `merge.${name}.name`, DRIVER_NAMES[name as keyof typeof DRIVER_NAMES]]);
    await git(tree.top, ['config', '--local', `merge.${name}.driver`, command]);
  }
}
