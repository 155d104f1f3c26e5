import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { tempDir, zk } from './corpus.js';

// Several hosts sharing one corpus through git: a bare remote and a clone per host, each with an
// identity of its own, the first clone's corpus made by `init` and pushed.

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await execa('git', args, { cwd, reject: false, env: { GIT_TERMINAL_PROMPT: '0' } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return String(r.stdout);
}

async function identify(clone: string, name: string): Promise<void> {
  for (const [k, v] of [
    ['user.name', name],
    ['user.email', `${name}@example.org`],
    ['commit.gpgsign', 'false'],
    ['core.hooksPath', '.git/hooks'],
  ])
    await git(clone, 'config', k, v);
}

export interface Hosts {
  remote: string;
  clones: string[];
}

/**
 * A bare remote and `n` clones of a corpus (`a`, `b`, …), all at the same first commit: a copy of
 * hosts made once per test file (git init, commit, push and clone cost more CPU than the copy).
 */
export function gitHosts(n: number): Promise<Hosts> {
  return preparedHosts(`plain ${n}`, n, async () => {});
}

/**
 * A copy of `n` hosts on which `prepare` ran, once per test file and `name`: for tests that each
 * start from the same state made by several syncs, made once instead of in every test.
 */
export async function preparedHosts(name: string, n: number, prepare: (hosts: Hosts) => Promise<void>): Promise<Hosts> {
  const made = await madeOnce(name, async () => {
    const hosts = await makeHosts(n);
    await prepare(hosts);
    return hosts;
  });
  const dir = tempDir('zk-hosts-');
  fs.cpSync(made.dir, dir, { recursive: true, preserveTimestamps: true });
  const moved = (p: string) => path.join(dir, path.relative(made.dir, p));
  // a clone names its remote by absolute path: the copy's own
  for (const clone of made.clones) {
    const config = path.join(moved(clone), '.git', 'config');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replaceAll(made.dir, dir));
  }
  return { remote: moved(made.remote), clones: made.clones.map(moved) };
}

type Made = Hosts & { dir: string };
const originals = new Map<string, Promise<Made>>();

/** Hosts made once, made again once the test file that made them has removed them. */
async function madeOnce(name: string, make: () => Promise<Made>): Promise<Made> {
  const known = originals.get(name);
  if (known && fs.existsSync((await known).dir)) return known;
  const making = make();
  originals.set(name, making);
  return making;
}

async function makeHosts(n: number): Promise<Hosts & { dir: string }> {
  const dir = tempDir('zk-hosts-');
  const remote = path.join(dir, 'remote.git');
  await git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  const names = 'abcdefgh'.slice(0, n).split('');
  const first = path.join(dir, names[0]);
  fs.mkdirSync(first);
  await git(first, 'init', '-q', '-b', 'main');
  await identify(first, names[0]);
  expect((await zk(['init', first, '--json'])).json).toMatchObject({ ok: true, git_merge_rules: true });
  await git(first, 'add', '-A');
  await git(first, 'commit', '-q', '-m', 'a corpus');
  await git(first, 'remote', 'add', 'origin', remote);
  await git(first, 'push', '-q', '-u', 'origin', 'main');
  const clones = [first];
  for (const name of names.slice(1)) {
    const clone = path.join(dir, name);
    await git(dir, 'clone', '-q', remote, clone);
    await identify(clone, name);
    clones.push(clone);
  }
  return { dir, remote, clones };
}

/** The files of a clone's work tree (not .git, not the host-local parts of .zk), path → text. */
export function tree(clone: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(clone, p);
      if (rel === '.git' || (rel.startsWith('.zk') && rel !== '.zk' && rel !== '.zk/trace.jsonl' && rel !== '.zk/.gitignore')) continue;
      if (e.isDirectory()) walk(p);
      else out[rel] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(clone);
  return out;
}
