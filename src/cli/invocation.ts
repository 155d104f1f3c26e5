import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { current, withContext, type Io } from '../context.js';
import { asZkError, bugStack, errorJson, EXIT, ZkError } from '../errors.js';
import { resolveRoot } from '../api/root.js';
import { flagOverrides } from '../command-line/setting-flags.js';
import type { GlobalOptions } from '../command-line/globals.js';
import type { CommandLine, McpStreams } from '../command-line/command-line.js';

export type { GlobalOptions, CommandLine, McpStreams };

/** What a command hands back: the JSON object (without `ok`), its human text, and its exit code. */
export interface CommandResult {
  json: Record<string, unknown>;
  text?: string;
  exitCode?: number;
  /** `ok` in the JSON; true unless the command could not do what was asked. */
  ok?: boolean;
  /** A line for stderr (a failure beside a partial result). */
  error?: string;
}

/** Add the LLM flags every LLM command takes. */
export function addLlmOptions(cmd: Command): Command {
  return cmd
    .option('--llm-base <url>', 'OpenAI-compatible server, with or without /v1 (else ZK_MEMORY_LLM_BASE)')
    .option('--llm-model <id>', 'model id (else ZK_MEMORY_LLM_MODEL)')
    .option('--llm-key <key>', 'API key, sent as a bearer token (else ZK_MEMORY_LLM_KEY; local servers need none)')
    .option('--llm-timeout <seconds>', 'per-request timeout (else ZK_MEMORY_LLM_TIMEOUT; default 180)')
    .option('--llm-max-tokens <n>', 'room for the answer (else ZK_MEMORY_LLM_MAX_TOKENS; default 8192)')
    .option('--llm-retries <n>', 'retries on 429, 5xx and network errors (else ZK_MEMORY_LLM_RETRIES; default 3)');
}

export const COMMIT_HELP = 'commit the files this command changed to git, and nothing else (else ZK_MEMORY_GIT_COMMIT)';

/** Add `--commit` to a command that writes. */
export function addCommitOption(cmd: Command): Command {
  return cmd.option('--commit', COMMIT_HELP);
}

/** Add the embedding flags every command that searches or indexes vectors takes. */
export function addEmbedOptions(cmd: Command): Command {
  return cmd
    .option('--embed-base <url>', 'OpenAI-compatible embeddings server, with or without /v1 (else ZK_MEMORY_EMBED_BASE)')
    .option('--embed-model <id>', 'embedding model id (else ZK_MEMORY_EMBED_MODEL)')
    .option('--embed-key <key>', 'API key, sent as a bearer token (else ZK_MEMORY_EMBED_KEY; local servers need none)')
    .option('--embed-timeout <seconds>', 'per-request timeout (else ZK_MEMORY_EMBED_TIMEOUT; default 60)')
    .option('--embed-batch <n>', 'texts per request (else ZK_MEMORY_EMBED_BATCH; default 64)')
    .option('--embed-retries <n>', 'retries on 429, 5xx and network errors (else ZK_MEMORY_EMBED_RETRIES; default 3)');
}

/** What an invocation knows of the surface that runs it. */
export interface Surface {
  /** For the commands the resident server answers: whether it answered this one (`server` in `--json`). */
  server?: boolean;
  /** Where `mcp` speaks, when not on the process's stdin and stdout. */
  streams?: McpStreams;
  /** The command line's own entry (src/cli.ts `main`), for the resident server to answer calls with. */
  main?: CommandLine;
  /** When the call's time began, on the monotonic clock (see `CommandLineOptions.startedAt`). */
  startedAt?: number;
}

/**
 * One command-line invocation: its global options, its output, and the exit code its command
 * leaves. Built anew for every call of `main`, so nothing is shared between calls in one process.
 */
export class Invocation {
  exitCode: number = EXIT.ok;

  constructor(
    readonly globals: GlobalOptions,
    readonly surface: Surface = {},
  ) {}

  /**
   * The JSON of a command the resident server answers says whether it did (docs/server.md):
   * `server: true|false`, or `server.answered` where the answer has a `server` object of its own
   * (`status`).
   */
  private answered(json: Record<string, unknown>): Record<string, unknown> {
    const by = this.surface.server;
    if (by === undefined) return json;
    const own = json.server;
    return { ...json, server: own && typeof own === 'object' ? { ...own, answered: by } : by };
  }

  /** The corpus root for this invocation. */
  root(): string {
    return resolveRoot(this.globals.root, { corpora: this.globals.corpora });
  }

  private get io(): Io {
    return current().io;
  }

  print(r: CommandResult): number {
    if (r.error) this.io.stderr(`error: ${r.error}\n`);
    if (this.globals.json) {
      this.io.stdout(`${JSON.stringify(this.answered({ ok: r.ok ?? true, ...r.json }))}\n`);
    } else if (r.text !== undefined && r.text !== '') {
      this.io.stdout(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
    }
    return r.exitCode ?? EXIT.ok;
  }

  /** Print an error the one way every command does: JSON on stdout with --json, one line on stderr. */
  printError(err: unknown): number {
    const e = asZkError(err);
    if (this.globals.json) this.io.stdout(`${JSON.stringify(this.answered(errorJson(e)))}\n`);
    else this.io.stderr(`error: ${e.message}\n`);
    // A bug's stack follows on stderr, whatever the output (ZK_MEMORY_DEBUG=1 asks for every one's).
    const stack = bugStack(err, current().settings.debug());
    if (stack) this.io.stderr(`${stack}\n`);
    return e.exitCode;
  }

  /**
   * Wrap a command's action: its flags that stand for settings apply to this call only, then its
   * result or its error is printed and its exit code kept.
   */
  action<A extends unknown[]>(fn: (...args: A) => Promise<CommandResult> | CommandResult) {
    return async (...args: A): Promise<void> => {
      const flags = args.find((a, i) => i === args.length - 2 && a && typeof a === 'object') as Record<string, unknown> | undefined;
      const ctx = current();
      const scoped = { ...ctx, settings: ctx.settings.with(flagOverrides(flags ?? {})) };
      try {
        const result = await withContext(scoped, () => fn(...args));
        this.exitCode = this.print(withCommitLine(result));
      } catch (err) {
        this.exitCode = this.printError(err);
      }
    };
  }
}

/** The text of a result that made a commit ends with the commit's name and subject. */
function withCommitLine(r: CommandResult): CommandResult {
  const commit = r.json.commit as { sha?: string; message?: string } | undefined;
  if (!commit?.sha || r.text === undefined) return r;
  const line = `committed ${commit.sha.slice(0, 12)}: ${commit.message?.split('\n')[0] ?? ''}`;
  return { ...r, text: r.text ? `${r.text.replace(/\n$/, '')}\n${line}` : line };
}

/** Text from an argument, or from stdin when the argument is `-` or missing and stdin is piped. */
export function textArg(arg: string | undefined): string | undefined {
  if (arg === '-' || arg === undefined) {
    const piped = current().io.stdin();
    if (piped !== undefined) return piped;
    return arg === '-' ? '' : undefined;
  }
  return arg;
}

/** The text of a file named on the command line (`-` for stdin). */
export function fileArg(file: string): string {
  if (file === '-') {
    const piped = current().io.stdin();
    if (piped === undefined) throw new ZkError('usage', 'nothing on stdin: pipe the input, or name a file');
    return piped;
  }
  try {
    // Named from the caller's working folder: a resident server answering the call runs in its own.
    return fs.readFileSync(path.resolve(current().io.cwd(), file), 'utf8');
  } catch (err) {
    throw new ZkError('usage', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
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
