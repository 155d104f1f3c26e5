import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callMemo, settings } from '../context.js';
import type { Settings } from '../settings.js';
import { sidecar } from '../corpus/files/paths.js';

/**
 * File systems whose files other hosts change behind this host's back, by their `statfs(2)` type
 * (the magic numbers coreutils' `stat -f` lists as remote). FUSE is counted whole: sshfs is FUSE,
 * and a FUSE mount does not say what is behind it.
 */
const NETWORK_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x564c, 'ncp'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'kafs'],
  [0x00c36400, 'ceph'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
  [0x01161970, 'gfs2'],
  [0x7461636f, 'ocfs2'],
  [0x19830326, 'beegfs'],
  [0x013111a8, 'ibrix'],
  [0xaad7aaea, 'panfs'],
  [0xbeefdead, 'snfs'],
  [0x73757245, 'coda'],
  [0x01021997, 'v9fs'],
  [0x786f4256, 'vboxsf'],
  [0xbacbacbc, 'vmhgfs'],
  [0x7c7c6673, 'prl_fs'],
]);

/** The name of a network file system type, or undefined for a local one. */
export function networkFileSystem(type: number): string | undefined {
  return NETWORK_FILE_SYSTEMS.get(type >>> 0);
}

/** What decides where the index lives, read once from the environment and passed in. */
export interface IndexSettings {
  /** `ZK_MEMORY_INDEX_DIR`: the folder this corpus's index lives in, whatever the file system. */
  indexDir?: string;
  /** Where per-host caches go: `$XDG_CACHE_HOME`, else `~/.cache`. */
  cacheHome: string;
  host: string;
}

export function indexSettingsFromEnv(s: Settings = settings()): IndexSettings {
  return {
    indexDir: s.indexDir(),
    cacheHome: s.text('XDG_CACHE_HOME') || path.join(os.homedir(), '.cache'),
    host: os.hostname(),
  };
}

export type IndexPlacement = 'setting' | 'network' | 'local';

/** Where the LanceDB index (full-text table, vectors, their manifests and lock) lives, and why. */
export interface IndexLocation {
  dir: string;
  /** The index lock: index writers serialize on it, never on the corpus lock. */
  lock: string;
  placement: IndexPlacement;
  /** The network file system the corpus is on, when it is on one. */
  fileSystem: string | null;
  /** One sentence saying why the index is there. */
  why: string;
}

/** The root's file system type from `statfs`, undefined when it cannot be asked. */
export function statfsType(root: string): number | undefined {
  try {
    return fs.statfsSync(root).type;
  } catch {
    return undefined;
  }
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/**
 * Decide where the index of `root` lives. The index is derived, per-host state: LanceDB's files
 * are rewritten in place by whoever refreshes them, so two hosts sharing one copy on a network
 * file system break each other's tables, and a cached mount shows one host the other's files late.
 * On a network file system it therefore lives in this host's cache, keyed by host and the corpus's
 * real path; on a local disk it stays beside the notes under `.zk/index/`. `ZK_MEMORY_INDEX_DIR`
 * overrides both. `fsType` is the root's `statfs` type (undefined: unknown, taken as local).
 */
export function decideIndexLocation(root: string, settings: IndexSettings, fsType: number | undefined): IndexLocation {
  const at = (dir: string, placement: IndexPlacement, fileSystem: string | null, why: string): IndexLocation => ({
    dir,
    lock: path.join(dir, '.lock'),
    placement,
    fileSystem,
    why,
  });
  const fileSystem = fsType === undefined ? null : (networkFileSystem(fsType) ?? null);
  if (settings.indexDir) {
    return at(path.resolve(settings.indexDir), 'setting', fileSystem, 'set by ZK_MEMORY_INDEX_DIR');
  }
  if (fileSystem) {
    const key = crypto
      .createHash('sha256')
      .update(`${settings.host}\0${realRoot(root)}`)
      .digest('hex');
    const dir = path.join(settings.cacheHome, 'zk-memory', 'index', key);
    return at(dir, 'network', fileSystem, `the corpus is on a network file system (${fileSystem}): the index is kept per host, in this host's cache`);
  }
  return at(sidecar(root).index, 'local', null, 'the corpus is on a local disk');
}

/** A per-note cache file of `root` (src/corpus/note/stat-cache.ts): derived, per host, beside the index. */
export function noteCacheFile(root: string, name: string): string {
  return path.join(indexLocation(root).dir, name);
}

/**
 * Where the index of `root` lives on this host (see `decideIndexLocation`), worked out once per
 * call: a search asks for it several times, and on a network file system each `statfs` is a
 * round trip to the server.
 */
export function indexLocation(root: string): IndexLocation {
  // Per call: the settings are the call's, and a root's file system does not change under it.
  const known = callMemo().get('index-locations', () => new Map<string, IndexLocation>());
  let location = known.get(root);
  if (!location) known.set(root, (location = decideIndexLocation(root, indexSettingsFromEnv(), statfsType(root))));
  return location;
}
