import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { asZkError, ZkError } from './errors.js';
import { capture, errorJson, lastExitCode, printError, setGlobals, type Captured, type GlobalOptions } from './cli/context.js';
type Registrar = { register(program: Command): void };

/** Every command, loaded only when it is the one being run (or for the full help). */
const COMMANDS: Record<string, () => Promise<Registrar>> = {
  init: () => import('./commands/init.js'),
  write: () => import('./commands/write.js'),
  read: () => import('./commands/read.js'),
  merge: () => import('./commands/merge.js'),
  list: () => import('./commands/list.js'),
  search: () => import('./commands/search.js'),
  index: () => import('./commands/index-cmd.js'),
  status: () => import('./commands/status.js'),
  supersede: () => import('./commands/supersede.js'),
  tend: () => import('./commands/tend.js'),
  integrate: () => import('./commands/integrate.js'),
  retain: () => import('./commands/retain.js'),
  ingest: () => import('./commands/ingest.js'),
  split: () => import('./commands/split.js'),
  'split-candidates': () => import('./commands/split-candidates.js'),
  'tend-writes': () => import('./commands/tend-writes.js'),
  mcp: () => import('./commands/mcp.js'),
};

/** The commands to register for these arguments: the one named, none for --version, else all. */
function commandsFor(rest: string[]): string[] {
  const first = rest[0];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  if (rest.length === 1 && (first === '--version' || first === '-V')) return [];
  return Object.keys(COMMANDS);
}

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

async function buildProgram(rest: string[]): Promise<Command> {
  const program = new Command('zk-memory');
  program
    .description('Long-term memory as a flat Markdown zettelkasten')
    .version(version(), '-V, --version')
    .option('--root <dir>', 'corpus root (else ZK_MEMORY_ROOT, else the nearest folder holding .zk/)')
    .option('--json', 'print one JSON object on stdout')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ outputError: () => undefined });
  const modules = await Promise.all(commandsFor(rest).map((name) => COMMANDS[name]()));
  for (const m of modules) m.register(program);
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
  const program = await buildProgram(rest);
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
  const program = await buildProgram(argv);
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
