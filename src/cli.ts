import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ripgrepNoteGrep } from './adapters/ripgrep.js';
import { journalWrite } from './search/journal.js';
import { noteCacheFile } from './search/location.js';
import { processIo, withContext, type Io } from './context.js';
import { EXIT, ZkError } from './errors.js';
import { Settings, type Env } from './settings.js';
import { version } from './version.js';
import { Invocation, type GlobalOptions } from './cli/context.js';

/** A command module: registers its command on the program, for one invocation. */
type Registrar = { register(program: Command, cli: Invocation): void };

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
  log: () => import('./commands/log.js'),
  supersede: () => import('./commands/supersede.js'),
  archive: () => import('./commands/archive.js'),
  inbox: () => import('./commands/inbox.js'),
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

/**
 * Take `--root DIR` and `--json` out of the arguments wherever they stand (before or after the
 * subcommand, never after `--`), so every command sees them the same way.
 */
function extractGlobals(argv: string[]): { globals: GlobalOptions; rest: string[] } {
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

async function buildProgram(rest: string[], cli: Invocation, io: Io): Promise<Command> {
  const program = new Command('zk-memory');
  const output = { writeOut: (s: string) => io.stdout(s), writeErr: (s: string) => io.stderr(s), outputError: () => undefined };
  program
    .description('Long-term memory as a flat Markdown zettelkasten')
    .version(version(), '-V, --version')
    .option('--root <dir>', 'corpus root (else ZK_MEMORY_ROOT, else the nearest folder holding .zk/)')
    .option('--json', 'print one JSON object on stdout')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput(output);
  const modules = await Promise.all(commandsFor(rest).map((name) => COMMANDS[name]()));
  for (const m of modules) m.register(program, cli);
  const configure = (cmd: Command) => {
    cmd.exitOverride().configureOutput(output);
    for (const sub of cmd.commands) configure(sub);
  };
  for (const cmd of program.commands) {
    configure(cmd);
    cmd.option('--root <dir>', 'corpus root').option('--json', 'print one JSON object on stdout');
  }
  return program;
}

/**
 * Commander's message on one line: it puts its suggestion on a line of its own
 * (`unknown command 'serve'\n(Did you mean merge?)`), which goes after a space instead, so only
 * a line break in the user's input is left for ZkError to show as `\n`.
 */
function commanderMessage(err: CommanderError): string {
  return err.message.replace(/^error:\s*/, '').replace(/\n\(Did you mean ([^\n]*\?)\)$/, ' (did you mean $1)');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Piped text as UTF-8; bytes that are not would turn into U+FFFD unseen, so they are refused. */
function utf8(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ZkError('usage', 'stdin is not valid UTF-8: convert it first (for example with iconv)');
  }
}

/** Standard input for a command line: read once, and only when it is a pipe or a file. */
function processStdin(): () => string | undefined {
  let read: { text: string | undefined } | undefined;
  return () => {
    if (read) return read.text;
    read = { text: undefined };
    try {
      const st = fs.fstatSync(0);
      if (st.isFIFO() || st.isFile() || st.isSocket()) read.text = utf8(fs.readFileSync(0));
    } catch (err) {
      if (err instanceof ZkError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EOF') read.text = '';
    }
    return read.text;
  };
}

/** The process's own input and output, for a command line run as a process. */
function commandLineIo(): Io {
  return { ...processIo, stdin: processStdin() };
}

/**
 * Run the CLI; resolves to the exit code. Input, output and environment are the process's unless
 * given, so the same command line can run in-process (tests, a program embedding the tool).
 */
export async function main(argv: string[], io: Io = commandLineIo(), env: Env = process.env, o: { clock?: () => number } = {}): Promise<number> {
  const ctx = { settings: new Settings(env), io, grep: ripgrepNoteGrep, written: journalWrite, noteCache: noteCacheFile, clock: o.clock };
  return withContext(ctx, () => run(argv, io));
}

async function run(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof extractGlobals>;
  try {
    parsed = extractGlobals(argv);
  } catch (err) {
    return new Invocation({ json: argv.includes('--json') }).printError(err);
  }
  const cli = new Invocation(parsed.globals);
  if (parsed.rest.length === 1 && (parsed.rest[0] === '--version' || parsed.rest[0] === '-V')) {
    return cli.print({ json: { version: version() }, text: version() });
  }
  const program = await buildProgram(parsed.rest, cli, io);
  if (parsed.rest.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync(parsed.rest, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.version' || err.code === 'commander.helpDisplayed' || err.code === 'commander.help') return EXIT.ok;
      return cli.printError(new ZkError('usage', commanderMessage(err)));
    }
    return cli.printError(err);
  }
  return cli.exitCode;
}
