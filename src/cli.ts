import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { asZkError, ZkError } from './errors.js';
import { capture, errorJson, lastExitCode, printError, setGlobals, type Captured, type GlobalOptions } from './cli/context.js';
import { register as registerIndex } from './commands/index-cmd.js';
import { register as registerIntegrate } from './commands/integrate.js';
import { register as registerIngest } from './commands/ingest.js';
import { register as registerInit } from './commands/init.js';
import { register as registerList } from './commands/list.js';
import { register as registerMcp } from './commands/mcp.js';
import { register as registerMerge } from './commands/merge.js';
import { register as registerRead } from './commands/read.js';
import { register as registerRetain } from './commands/retain.js';
import { register as registerSearch } from './commands/search.js';
import { register as registerSplit } from './commands/split.js';
import { register as registerSplitCandidates } from './commands/split-candidates.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerSupersede } from './commands/supersede.js';
import { register as registerTend } from './commands/tend.js';
import { register as registerTendWrites } from './commands/tend-writes.js';
import { register as registerWrite } from './commands/write.js';

const COMMANDS = [registerInit, registerWrite, registerRead, registerMerge, registerList, registerSearch, registerIndex, registerStatus, registerSupersede, registerTend, registerIntegrate, registerRetain, registerIngest, registerSplit, registerSplitCandidates, registerTendWrites, registerMcp];

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

/**
 * Take `--root DIR` and `--json` out of the arguments wherever they stand (before or after the
 * subcommand, never after `--`), so every command sees them the same way.
 */
export function extractGlobals(argv: string[]): { globals: GlobalOptions; rest: string[] } {
  const globals: GlobalOptions = { json: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--json') globals.json = true;
    else if (a === '--root') {
      if (i + 1 >= argv.length) throw new ZkError('usage', 'option --root needs a directory');
      globals.root = argv[++i];
    } else if (a.startsWith('--root=')) globals.root = a.slice('--root='.length);
    else rest.push(a);
  }
  return { globals, rest };
}

function buildProgram(): Command {
  const program = new Command('zk-memory');
  program
    .description('Long-term memory as a flat Markdown zettelkasten')
    .version(version(), '-V, --version')
    .option('--root <dir>', 'corpus root (else ZK_MEMORY_ROOT, else the nearest folder holding .zk/)')
    .option('--json', 'print one JSON object on stdout')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ outputError: () => undefined });
  for (const register of COMMANDS) register(program);
  for (const cmd of program.commands) {
    cmd.exitOverride().configureOutput({ outputError: () => undefined });
    cmd.option('--root <dir>', 'corpus root').option('--json', 'print one JSON object on stdout');
  }
  return program;
}

/** Run the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let rest: string[];
  try {
    const parsed = extractGlobals(argv);
    setGlobals(parsed.globals);
    rest = parsed.rest;
  } catch (err) {
    return printError(err);
  }
  const program = buildProgram();
  if (rest.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    await program.parseAsync(rest, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return printError(new ZkError('usage', err.message.replace(/^error:\s*/, '')));
    }
    return printError(err);
  }
  return lastExitCode();
}

/** A command's outcome as the CLI would print it: exit code, JSON object and human text. */
export interface CapturedRun {
  exitCode: number;
  json: Record<string, unknown>;
  text: string;
}

/**
 * Run one command in-process, exactly as the command line would (same parsing, validation,
 * errors and JSON), and hand back what it would have printed. The MCP server's tools use this.
 */
export async function runCaptured(argv: string[]): Promise<CapturedRun> {
  const box: Captured = {};
  const program = buildProgram();
  await capture.run(box, async () => {
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (err) {
      box.error = err instanceof CommanderError ? new ZkError('usage', err.message.replace(/^error:\s*/, '')) : err;
    }
  });
  if (box.error !== undefined || !box.result) {
    const e = asZkError(box.error ?? new ZkError('usage', `no such command: ${argv[0]}`));
    return { exitCode: e.exitCode, json: errorJson(e), text: `error: ${e.message}` };
  }
  const r = box.result;
  // A command that failed part-way (retain spooling) says why in its JSON error; the text says it too.
  const error = r.ok === false ? (r.json.error as { message?: string } | undefined)?.message : undefined;
  const text = [r.text, error && `error: ${error}`].filter(Boolean).join('\n');
  return { exitCode: r.exitCode ?? 0, json: { ok: r.ok ?? true, ...r.json }, text };
}
