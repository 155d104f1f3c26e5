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
  for (const [k, v] of [['user.name', name], ['user.email', `${name}@example.org`], ['commit.gpgsign', 'false'], ['core.hooksPath', '.git/hooks']]) await git(clone, 'config', k, v);
}

export interface Hosts {
  remote: string;
  clones: string[];
}

/** A bare remote and `n` clones of a corpus (`a`, `b`, …), all at the same first commit. */
export async function gitHosts(n: number): Promise<Hosts> {
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
  return { remote, clones };
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
