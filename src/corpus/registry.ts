import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../context.js';
import type { Settings } from '../settings.js';
import { ZkError } from '../errors.js';
import { writePrivateJson } from './files/files.js';
import { withLock, type LockSite } from './lock/lock.js';

// The corpora of this user by name (docs/configuration.md#corpora-by-name): one small file in the
// user's config folder, `corpora.json`, written whole to a temp file and renamed over the old one,
// under a lock of its own so two `corpus add` at once lose neither. A name is what `--corpus NAME`
// and `/mcp/NAME` take; the file maps it to the corpus's real path.

export interface NamedCorpus {
  name: string;
  /** The corpus's real path when it was added. */
  root: string;
}

interface RegistryFile {
  corpora: NamedCorpus[];
}

/** A corpus name: a path segment of a URL and a word on a command line, short and plain. */
export const CORPUS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `$XDG_CONFIG_HOME/zk-memory/corpora.json`, else `~/.config/zk-memory/corpora.json`. */
export function registryFile(s: Settings = settings()): string {
  return path.join(s.configHome() || path.join(os.homedir(), '.config'), 'zk-memory', 'corpora.json');
}

const damaged = (file: string, why: string) => new ZkError('io', `${file} ${why}: mend it or remove it and add the corpora again`);

/** The registered corpora; none when there is no file. A file another user could change is refused: it decides what a name opens. */
export function readRegistry(s?: Settings): NamedCorpus[] {
  const file = registryFile(s);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isFile()) throw damaged(file, 'is not a plain file');
  const uid = process.getuid?.();
  if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) throw damaged(file, "is not this user's own, or others may write it");
  let body: RegistryFile;
  try {
    body = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw damaged(file, 'is not JSON');
  }
  const valid = (c: NamedCorpus) => typeof c?.name === 'string' && CORPUS_NAME.test(c.name) && typeof c.root === 'string' && path.isAbsolute(c.root);
  if (!Array.isArray(body?.corpora) || !body.corpora.every(valid)) throw damaged(file, 'is damaged');
  return body.corpora.map(({ name, root }) => ({ name, root }));
}

/** The root of the corpus registered as `name`; a name not registered is a usage error. */
export function registeredRoot(name: string, s?: Settings): string {
  const found = readRegistry(s).find((c) => c.name === name);
  if (!found) throw new ZkError('usage', `no corpus is registered as ${JSON.stringify(name)} (zk-memory corpus list shows them; corpus add NAME DIR adds one)`);
  return found.root;
}

function lockSite(): LockSite {
  const dir = path.dirname(registryFile());
  return { path: path.join(dir, 'corpora.lock'), what: 'corpus registry', prepare: () => fs.mkdirSync(dir, { recursive: true, mode: 0o700 }) };
}

/** Change the registry under its lock: `change` gets the corpora and returns them as they are to be. */
export async function updateRegistry<T>(change: (corpora: NamedCorpus[]) => { corpora: NamedCorpus[]; result: T }): Promise<T> {
  return withLock(lockSite(), () => {
    const { corpora, result } = change(readRegistry());
    const body: RegistryFile = { corpora };
    writePrivateJson(registryFile(), body);
    return result;
  });
}
