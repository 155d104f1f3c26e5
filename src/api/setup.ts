import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { tempBeside } from '../corpus/files/files.js';
import { setupEdits, type Scope, type SetupTarget } from '../pipelines/host-setup.js';

// `zk-memory setup HOST`: the host's MCP server entry and hooks for one corpus, merged into the
// host's own settings files. Every file is read and checked before any is written, so a file that
// does not parse leaves all of them as they were.

export interface SetupRequest extends SetupTarget {
  remove?: boolean;
  dryRun?: boolean;
}

export interface SetupFileResult {
  file: string;
  /** What happened to the file (or would, with a dry run). */
  action: 'created' | 'updated' | 'deleted' | 'unchanged';
  /** The entries added or removed, as paths in its JSON (`hooks.Stop`, `mcpServers.zk-memory`). */
  changes: string[];
}

export interface SetupResult {
  host: string;
  scope: Scope;
  root: string;
  remove: boolean;
  dry_run: boolean;
  files: SetupFileResult[];
}

function readSettings(file: string): { json: Record<string, unknown>; exists: boolean } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { json: {}, exists: false };
    throw new ZkError('io', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let json: unknown;
  try {
    json = text.trim() ? JSON.parse(text) : {};
  } catch (err) {
    throw new ZkError('refused', `${file} is not valid JSON (${(err as Error).message.split('\n')[0]}): fix it first; nothing was changed`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new ZkError('refused', `${file} does not hold a JSON object: fix it first; nothing was changed`);
  return { json: json as Record<string, unknown>, exists: true };
}

/**
 * Write a settings file whole and atomically, through a symlink to its target (dotfiles are often
 * links into a repository), keeping its mode; a new one is private to its owner (it may hold paths
 * and environment).
 */
function writeSettings(file: string, json: Record<string, unknown>): void {
  const real = fs.existsSync(file) ? fs.realpathSync(file) : file;
  fs.mkdirSync(path.dirname(real), { recursive: true });
  const mode = fs.statSync(real, { throwIfNoEntry: false })?.mode ?? 0o600;
  const tmp = tempBeside(real);
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(json, null, 2)}\n`, { mode: mode & 0o7777, flag: 'wx' });
    fs.renameSync(tmp, real);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Add (or with `remove`, take out) this corpus's MCP server and hooks in the host's settings. */
export function setup(o: SetupRequest): SetupResult {
  const edits = setupEdits(o);
  // Several edits may touch one file (Gemini keeps both in settings.json): each file is read once and edited in turn.
  const files = new Map<string, { json: Record<string, unknown>; exists: boolean; changes: string[] }>();
  for (const edit of edits) {
    const f = files.get(edit.file) ?? { ...readSettings(edit.file), changes: [] };
    const r = o.remove ? edit.remove(f.json) : edit.add(f.json);
    files.set(edit.file, { ...f, json: r.json, changes: [...f.changes, ...r.changes] });
  }
  const results: SetupFileResult[] = [];
  for (const [file, f] of files) {
    const emptied = o.remove && f.changes.length > 0 && Object.keys(f.json).length === 0;
    const action = !f.changes.length ? 'unchanged' : emptied ? 'deleted' : f.exists ? 'updated' : 'created';
    results.push({ file, action, changes: f.changes });
    if (o.dryRun || action === 'unchanged') continue;
    if (action === 'deleted') fs.rmSync(fs.realpathSync(file), { force: true });
    else writeSettings(file, f.json);
  }
  return { host: o.host, scope: o.scope, root: o.root, remove: Boolean(o.remove), dry_run: Boolean(o.dryRun), files: results };
}
