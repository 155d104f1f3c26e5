import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import type { NoteGrep } from '../ports.js';

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
    const args = [
      '--files-with-matches',
      '--null',
      '--ignore-case',
      ...(o.fixed ? ['--fixed-strings'] : []),
      ...patterns.flatMap((p) => ['-e', p]),
      ...NOTE_FILES,
    ];
    const rg = spawnSync(rgPath(), args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    // 1 means "no match"; anything else (a missing binary, a crash) leaves the caller's fallback.
    if (rg.status !== 0 && rg.status !== 1) return undefined;
    return rg.stdout
      .split('\0')
      .filter(Boolean)
      .map((l) => path.basename(l));
  },
};

/** What one ripgrep run left: its exit code (null when killed), its output and its errors. */
export interface RipgrepRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary file for ripgrep's output, unlinked at once where the system allows; undefined when none can be made. */
function scratchOutput(): { fd: number; close(): void } | undefined {
  const file = path.join(os.tmpdir(), `zk-memory-rg-${process.pid}-${crypto.randomUUID()}.out`);
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx+', 0o600);
  } catch {
    return undefined;
  }
  let linked = true;
  try {
    fs.unlinkSync(file);
    linked = false;
  } catch {
    // removed on close
  }
  return {
    fd,
    close() {
      fs.closeSync(fd);
      if (linked) fs.rmSync(file, { force: true });
    },
  };
}

function readAll(fd: number): string {
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.toString('utf8', 0, at);
}

/**
 * Run ripgrep in `cwd` with its output going to a temporary file rather than a pipe: a pipe holds
 * 64 KB, so a large output would stall ripgrep whenever this process is busy (and each small
 * write would wake it), while a file takes it at full speed. The file is unlinked as soon as it is
 * open (where the system allows), so nothing is left behind even if this process dies; where no
 * temporary file can be made, the output comes through a pipe. `meanwhile` runs while ripgrep
 * searches, on another core; its result comes back with the run.
 */
export async function runRipgrep<T>(args: string[], cwd: string, meanwhile: () => T): Promise<RipgrepRun & { also: T }> {
  const scratch = scratchOutput();
  try {
    const child = spawn(rgPath(), args, { cwd, stdio: ['ignore', scratch?.fd ?? 'pipe', 'pipe'] });
    const piped: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => piped.push(c));
    const exited = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      let stderr = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (c: string) => (stderr = (stderr + c).slice(0, 4096)));
      child.on('error', (err) => reject(new ZkError('io', `cannot run ripgrep (${rgPath()}): ${err.message}`)));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    let also: T;
    try {
      also = meanwhile();
    } catch (err) {
      child.kill();
      await exited.catch(() => undefined);
      throw err;
    }
    const { code, stderr } = await exited;
    const stdout = scratch ? readAll(scratch.fd) : Buffer.concat(piped).toString('utf8');
    return { code, stdout, stderr, also };
  } finally {
    scratch?.close();
  }
}
