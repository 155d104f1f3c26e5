import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { asZkError, ZkError } from '../errors.js';
import { resolveRoot } from '../corpus/root.js';

/** Options every command understands wherever they stand on the command line. */
export interface GlobalOptions {
  root?: string;
  json: boolean;
}

let globals: GlobalOptions = { json: false };

export function setGlobals(g: GlobalOptions): void {
  globals = g;
}

export function getGlobals(): GlobalOptions {
  return globals;
}

/** The corpus root for this invocation. */
export function corpusRoot(): string {
  return resolveRoot(globals.root);
}

/** What a command hands back: the JSON object (without `ok`), its human text, and its exit code. */
export interface CommandResult {
  json: Record<string, unknown>;
  text?: string;
  exitCode?: number;
  /** `ok` in the JSON; true unless the command could not do what was asked. */
  ok?: boolean;
}

function printResult(r: CommandResult): number {
  if (globals.json) {
    process.stdout.write(`${JSON.stringify({ ok: r.ok ?? true, ...r.json })}\n`);
  } else if (r.text !== undefined && r.text !== '') {
    process.stdout.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
  }
  return r.exitCode ?? 0;
}

/** The JSON every command prints when it fails. */
export function errorJson(e: ZkError): Record<string, unknown> {
  return { ok: false, error: { code: e.code, message: e.message, ...(e.details ?? {}) } };
}

/** Print an error the one way every command does: JSON on stdout with --json, one line on stderr. */
export function printError(err: unknown): number {
  const e = asZkError(err);
  if (!(err instanceof ZkError) && process.env.ZK_MEMORY_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
  if (globals.json) {
    process.stdout.write(`${JSON.stringify(errorJson(e))}\n`);
  } else {
    process.stderr.write(`error: ${e.message}\n`);
  }
  return e.exitCode;
}

let exitCode = 0;

/** Where a command run in-process (by the MCP server) leaves its result instead of printing it. */
export interface Captured {
  result?: CommandResult;
  error?: unknown;
}
export const capture = new AsyncLocalStorage<Captured>();

/** Wrap a command's action: run it, print its result or its error, remember the exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<CommandResult> | CommandResult) {
  return async (...args: A): Promise<void> => {
    const box = capture.getStore();
    try {
      const result = await fn(...args);
      if (box) box.result = result;
      else exitCode = printResult(result);
    } catch (err) {
      if (box) box.error = err;
      else exitCode = printError(err);
    }
  };
}

export function lastExitCode(): number {
  return exitCode;
}

/** True when stdin is a pipe, socket or file: not a terminal and not /dev/null. */
function stdinIsPiped(): boolean {
  try {
    const st = fs.fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

/** Text from an argument, or from stdin when the argument is `-` or missing and stdin is piped. */
export function textArg(arg: string | undefined): string | undefined {
  // A command run in-process never reads stdin: there it carries the MCP protocol.
  if (capture.getStore()) return arg === '-' ? '' : arg;
  if (arg === '-' || (arg === undefined && stdinIsPiped())) {
    try {
      return fs.readFileSync(0, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN' || (err as NodeJS.ErrnoException).code === 'EOF') return '';
      throw err;
    }
  }
  return arg;
}

/** The text of a file named on the command line (`-` for stdin). */
export function fileArg(file: string): string {
  if (file === '-' && capture.getStore()) throw new ZkError('usage', 'stdin is not available here: pass the text itself');
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new ZkError('usage', `cannot read ${file === '-' ? 'stdin' : file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Parse a whole-number option value (commander argParser). */
export function intOption(name: string, min = 1) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new ZkError('usage', `${name} takes a whole number >= ${min}, not ${JSON.stringify(value)}`);
    return n;
  };
}

/** Collect a repeatable option into a list (commander argParser). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
