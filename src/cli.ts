import { Command, CommanderError } from 'commander';
import { processIo, withContext, type Io } from './context.js';
import { callContext } from './compose.js';
import { EXIT, ZkError } from './errors.js';
import { Settings, type Env } from './settings.js';
import { version } from './version.js';
import { processStdin } from './command-line/stdin.js';
import { Invocation } from './cli/invocation.js';
import type { CommandLineOptions } from './command-line/command-line.js';
import { extractGlobals } from './command-line/globals.js';
import { servedCommand } from './command-line/served.js';
import type { Operation } from './operations/operation.js';

/** A command module: registers its command on the program, for one invocation. */
type Registrar = { register(program: Command, cli: Invocation): void };

/** A command rendered from an operation of the table both surfaces share (src/operations/). */
function fromTable(load: () => Promise<Operation>): () => Promise<Registrar> {
  return async () => {
    const [{ registerOperation }, op] = await Promise.all([import('./cli/operation-command.js'), load()]);
    return { register: (program, cli) => registerOperation(program, cli, op) };
  };
}

/** Every command, loaded only when it is the one being run (or for the full help). */
const COMMANDS: Record<string, () => Promise<Registrar>> = {
  init: () => import('./commands/init.js'),
  write: fromTable(async () => (await import('./operations/notes.js')).write),
  read: fromTable(async () => (await import('./operations/recall.js')).read),
  merge: fromTable(async () => (await import('./operations/notes.js')).merge),
  list: fromTable(async () => (await import('./operations/recall.js')).list),
  search: fromTable(async () => (await import('./operations/recall.js')).search),
  context: fromTable(async () => (await import('./operations/recall.js')).context),
  index: () => import('./commands/index-cmd.js'),
  status: () => import('./commands/status.js'),
  log: fromTable(async () => (await import('./operations/recall.js')).log),
  supersede: fromTable(async () => (await import('./operations/notes.js')).supersede),
  archive: fromTable(async () => (await import('./operations/notes.js')).archive),
  inbox: () => import('./commands/inbox.js'),
  tend: () => import('./commands/tend.js'),
  integrate: fromTable(async () => (await import('./operations/notes.js')).integrate),
  retain: () => import('./commands/retain.js'),
  ingest: () => import('./commands/ingest.js'),
  split: () => import('./commands/split.js'),
  'split-candidates': () => import('./commands/split-candidates.js'),
  'tend-writes': () => import('./commands/tend-writes.js'),
  hook: () => import('./commands/hook.js'),
  setup: () => import('./commands/setup.js'),
  mcp: () => import('./commands/mcp.js'),
  serve: () => import('./commands/serve.js'),
  token: () => import('./commands/token.js'),
  corpus: () => import('./commands/corpus.js'),
  sync: () => import('./commands/sync.js'),
  view: () => import('./commands/view.js'),
  'merge-driver': () => import('./commands/merge-driver.js'),
  import: () => import('./commands/import.js'),
  export: () => import('./commands/export.js'),
};

/** The commands to register for these arguments: the one named, none for --version, else all. */
function commandsFor(rest: string[]): string[] {
  const first = rest[0];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  if (rest.length === 1 && (first === '--version' || first === '-V')) return [];
  return Object.keys(COMMANDS);
}

async function buildProgram(rest: string[], cli: Invocation, io: Io): Promise<Command> {
  const program = new Command('zk-memory');
  const output = { writeOut: (s: string) => io.stdout(s), writeErr: (s: string) => io.stderr(s), outputError: () => undefined };
  program
    .description('Long-term memory as a flat Markdown zettelkasten')
    .version(version(), '-V, --version')
    .option('--root <dir>', 'corpus root (else ZK_MEMORY_ROOT, else the nearest folder holding .zk/)')
    .option('--corpus <name>', 'the corpus registered as NAME (zk-memory corpus add NAME DIR), instead of --root')
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

/**
 * The process's own input and output, for a command line run as a process; `stdin` when the
 * standard input was already taken (by src/server/forward.ts before it fell back).
 */
export function commandLineIo(stdin: () => string | undefined = processStdin()): Io {
  return { ...processIo, stdin };
}

/**
 * Run the CLI; resolves to the exit code. Input, output and environment are the process's unless
 * given, so the same command line can run in-process (tests, a program embedding the tool).
 */
export async function main(argv: string[], io: Io = commandLineIo(), env: Env = process.env, o: MainOptions = {}): Promise<number> {
  o = { ...o, startedAt: o.startedAt ?? performance.now() };
  return withContext(callContext({ settings: new Settings(env), io, clock: o.clock, resident: o.resident }), () => run(argv, io, o));
}

/** How a command line is run, beyond its arguments, input, output and environment. */
export interface MainOptions extends CommandLineOptions {
  clock?: () => number;
}

async function run(argv: string[], io: Io, o: MainOptions): Promise<number> {
  let parsed: ReturnType<typeof extractGlobals>;
  try {
    parsed = extractGlobals(argv);
  } catch (err) {
    return new Invocation({ json: argv.includes('--json') }).printError(err);
  }
  const served = servedCommand(parsed.rest);
  const cli = new Invocation(parsed.globals, {
    server: served && served !== 'mcp' ? Boolean(o.served) : undefined,
    streams: o.streams,
    main,
    startedAt: o.startedAt,
  });
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
