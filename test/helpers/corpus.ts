import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type Options } from 'execa';
import { ensureSidecar } from '../../src/corpus/files/sidecar.js';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin', 'zk-memory.js');
export const DIST = path.join(REPO, 'dist', 'src');

const made: string[] = [];

/** Remove every temp folder made so far: test/per-file-setup.ts calls it when each test file is done. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A fresh temp folder, removed when the test file is done. */
export function tempDir(prefix = 'zk-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A fresh, initialized corpus in a temp folder. */
export function tempCorpus(init = true): string {
  const dir = tempDir('zk-test-');
  if (init) ensureSidecar(dir);
  return dir;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json?: any;
}

/** `clock` (in-process runs only): the time claims and leases are judged by, so a test need not sleep. */
type ZkOptions = Options & { input?: string; clock?: () => number };

/** The environment a CLI run sees: the test process's, without the variables a developer may have set. */
function cliEnv(opts: ZkOptions): Record<string, string | undefined> {
  return { ...process.env, ZK_MEMORY_ROOT: '', ZK_MEMORY_SOURCE: '', ZK_MEMORY_BACKEND: '', ...(opts.env ?? {}) };
}

function withJson(args: string[], r: Omit<RunResult, 'json'>): RunResult {
  let json: any;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(r.stdout);
    } catch {
      json = undefined;
    }
  }
  return { ...r, json };
}

/**
 * Run the CLI in this process, exactly as the command line would (same parsing, output and exit
 * code), with its own environment, working directory and stdin. Fast: no process start-up.
 */
export async function zk(args: string[], opts: ZkOptions = {}): Promise<RunResult> {
  const { main } = await import('../../src/cli.js');
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    stdin: () => opts.input,
    cwd: () => String(opts.cwd ?? process.cwd()),
  };
  const code = await main(args, io, cliEnv(opts), { clock: opts.clock });
  // As a process run reads it (execa strips the final newline).
  return withJson(args, { code, stdout: stdout.replace(/\n$/, ''), stderr: stderr.replace(/\n$/, '') });
}

/** Run the built CLI as a separate process: for crashes, concurrency and real stdin. */
export async function zkProcess(args: string[], opts: ZkOptions = {}): Promise<RunResult> {
  const env = cliEnv(opts);
  const r = await execa('node', [BIN, ...args], {
    reject: false,
    stdin: opts.input === undefined ? 'ignore' : undefined,
    ...opts,
    env,
  } as Options);
  return withJson(args, { code: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') });
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
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort();
}

export function write(dir: string, name: string, content: string | Buffer): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}
