import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { git } from '../adapters/git.js';
import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import { sidecar } from '../corpus/files/paths.js';
import { writePrivateJson } from '../corpus/files/files.js';
import { warn } from '../corpus/warn.js';
import { withLock } from '../corpus/lock/lock.js';

// Where a corpus's HTTP tokens are kept (docs/http.md#tokens): outside the corpus, in the user's
// state folder, one file per corpus keyed by its real path, mode 0600. Nothing in the corpus
// grants a token: a file anyone could push, copy or check out there (`.zk/tokens.json`, where
// tokens were kept before) is never read to let a client in. Tokens made there on this host are
// moved here by the next `token` command.

/** A token as it is listed: never the token itself. */
export interface TokenInfo {
  /** Who holds it: the `source` of everything its client writes. */
  name: string;
  read_only: boolean;
  created: string;
}

/** A token as it is kept: its sha256, never the token. */
export interface KeptToken extends TokenInfo {
  sha256: string;
}

interface StoreFile {
  /** The corpus the tokens let a client into (its real path), for a person reading the file. */
  corpus: string;
  tokens: KeptToken[];
}

function validKept(t: unknown): t is KeptToken {
  const k = t as KeptToken;
  return typeof k?.name === 'string' && typeof k.read_only === 'boolean' && typeof k.created === 'string' && /^[0-9a-f]{64}$/.test(k.sha256);
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/** The tool's folder in the user's state folder: `$XDG_STATE_HOME/zk-memory`, else `~/.local/state/zk-memory`. */
export function stateFolder(): string {
  return path.join(settings().stateHome() || path.join(os.homedir(), '.local', 'state'), 'zk-memory');
}

/** The folder of every corpus's token file: `$XDG_STATE_HOME/zk-memory/tokens`, else `~/.local/state/zk-memory/tokens`. */
function storeDir(): string {
  return path.join(stateFolder(), 'tokens');
}

/** The file that keeps the tokens of the corpus at `root`. */
export function tokenStoreFile(root: string): string {
  const key = crypto.createHash('sha256').update(realRoot(root)).digest('hex').slice(0, 32);
  return path.join(storeDir(), `${key}.json`);
}

/** Whether a file is this user's own and open to no one else (where the system has owners at all). */
export function privateToUser(st: fs.Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || (st.uid === uid && (st.mode & 0o077) === 0);
}

const damaged = (file: string) => new ZkError('io', `${file} is damaged: remove it and make the tokens again`);

/** The tokens kept for `root`; none when there is no file. A file not this user's own, or open to others, is refused. */
export function readTokens(root: string): KeptToken[] {
  return readStoreFile(tokenStoreFile(root))?.tokens ?? [];
}

/** A store file as `readEveryStore` finds it. */
export interface FoundStore extends StoreFile {
  file: string;
}

/** Every store file's corpus and tokens: what a token made for several corpora is found in. */
export function readEveryStore(): FoundStore[] {
  let names: string[];
  try {
    names = fs.readdirSync(storeDir());
  } catch {
    return [];
  }
  return names
    .filter((n) => /^[0-9a-f]{32}\.json$/.test(n))
    .flatMap((n) => {
      const file = path.join(storeDir(), n);
      try {
        const store = readStoreFile(file);
        return store ? [{ ...store, file }] : [];
      } catch {
        return []; // refused for every request as well: it opens nothing, and says so when its corpus's tokens are read
      }
    });
}

/** A store file as kept, or undefined when there is none. */
function readStoreFile(file: string): StoreFile | undefined {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isFile()) throw new ZkError('io', `${file} is not a plain file: remove it and make the tokens again`);
  if (!privateToUser(st)) throw new ZkError('io', `${file} is not this user's own with mode 0600: remove it and make the tokens again`);
  let kept: StoreFile;
  try {
    kept = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw damaged(file);
  }
  if (!Array.isArray(kept?.tokens) || !kept.tokens.every(validKept) || typeof kept.corpus !== 'string') throw damaged(file);
  return kept;
}

/** Run `fn` holding the store's lock: changes that span several corpora's files are made one at a time. */
export function withTokenStore<T>(fn: () => Promise<T> | T): Promise<T> {
  const dir = storeDir();
  return withLock({ path: `${dir}.lock`, what: 'token store', prepare: () => fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 }) }, fn);
}

/** Replace the tokens kept for `root` (the caller holds the store's lock): a 0600 file in a 0700 folder. */
export function writeTokens(root: string, tokens: KeptToken[]): void {
  writePrivateJson(tokenStoreFile(root), { corpus: realRoot(root), tokens });
}

/** Replace the tokens of a file `readEveryStore` found (the caller holds the store's lock). */
export function rewriteStore(store: FoundStore, tokens: KeptToken[]): void {
  writePrivateJson(store.file, { corpus: store.corpus, tokens });
}

/** Why `.zk/tokens.json` cannot be taken as made on this host, or undefined when it can. */
async function notMadeHere(root: string, file: string, st: fs.Stats): Promise<string | undefined> {
  if (!st.isFile()) return 'is not a plain file';
  if (!privateToUser(st)) return "is not this user's own with mode 0600";
  const tracked = await git(root, ['ls-files', '--error-unmatch', '--', path.relative(root, file)]);
  if (tracked.code === 0) return 'is tracked by git (it may have come from a remote)';
  return undefined;
}

/**
 * Move the tokens an older version kept in `.zk/tokens.json` into the store, when the file is
 * this user's own, 0600 and not tracked by git (made on this host); a token of a name the store
 * has already stays out. Any other such file is left where it is, unread, with a warning. Call
 * under the store's lock.
 */
export async function adoptCorpusTokens(root: string): Promise<void> {
  const file = sidecar(root).tokens;
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return;
  const why = await notMadeHere(root, file, st);
  let legacy: unknown;
  try {
    legacy = why ? undefined : JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    legacy = undefined;
  }
  if (why || !Array.isArray(legacy) || !legacy.every(validKept)) {
    warn(`.zk/tokens.json ${why ?? 'is damaged'}: its tokens are not honoured (tokens are kept outside the corpus, in ${storeDir()}); remove it`);
    return;
  }
  const kept = readTokens(root);
  const names = new Set(kept.map((t) => t.name));
  writeTokens(root, [...kept, ...legacy.filter((t) => !names.has(t.name))]);
  fs.rmSync(file, { force: true });
}
