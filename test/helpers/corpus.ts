import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type Options } from 'execa';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin', 'zk-memory.js');
export const DIST = path.join(REPO, 'dist', 'src');

/** A fresh, initialized corpus in a temp folder. */
export function tempCorpus(init = true): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-test-'));
  if (init) fs.mkdirSync(path.join(dir, '.zk'));
  return dir;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json?: any;
}

/** Run the built CLI as a separate process. */
export async function zk(args: string[], opts: Options & { input?: string } = {}): Promise<RunResult> {
  const env = { ...process.env, ZK_MEMORY_ROOT: '', ZK_MEMORY_SOURCE: '', ZK_MEMORY_BACKEND: '', ...(opts.env ?? {}) };
  const r = await execa('node', [BIN, ...args], {
    reject: false,
    stdin: opts.input === undefined ? 'ignore' : undefined,
    ...opts,
    env,
  } as Options);
  const stdout = String(r.stdout ?? '');
  let json: any;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
  }
  return { code: r.exitCode ?? -1, stdout, stderr: String(r.stderr ?? ''), json };
}

/** sha256 of every file under a folder (relative path → hash), to prove nothing changed. */
export function snapshot(dir: string, opts: { skip?: RegExp } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (opts.skip?.test(rel)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[rel] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
      else if (e.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
    }
  };
  walk(dir);
  return out;
}

export function mdFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
}

export function write(dir: string, name: string, content: string | Buffer): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}
