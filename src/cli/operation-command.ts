import type { Command } from 'commander';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import { schemaProblems, type SchemaProblem } from '../validate.js';
import type { Args, CliForm, CliOption, Operation, OperationCall } from '../operations/operation.js';
import { addCommitOption, addEmbedOptions, addLlmOptions, collect, intOption, textArg, type CommandResult, type Invocation } from './invocation.js';

// A command rendered from an operation (src/operations/): its options come from the operation's
// schema of arguments, named as the command line names them (`as_of` is `--as-of`), and what it
// is given is checked by the one validator and run by the operation, as an MCP call is.

/** The option an argument is given with: `as_of` is `--as-of`. */
const flagOf = (key: string) => `--${key.replace(/_/g, '-')}`;
/** Where commander keeps an option's value: `as_of` in `asOf`. */
const attributeOf = (key: string) => key.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());

/** The command line's own names in messages: `--as-of`, quoted or not. */
const CLI_NAMES: Pick<OperationCall, 'argName'> = { argName: flagOf };

/** Register the command of `op` on the program, for one invocation. */
export function registerOperation(program: Command, cli: Invocation, op: Operation): void {
  const form = op.cli;
  if (!form) throw new ZkError('internal', `the operation ${op.name} has no command-line form`);
  const cmd = program.command([op.name, ...(form.positionals ?? [])].join(' ')).description(form.description);
  for (const [key, option] of Object.entries(form.options)) addOption(cmd, op, key, option);
  if (form.llm) addLlmOptions(cmd);
  if (form.commit) addCommitOption(cmd);
  if (form.embed) addEmbedOptions(cmd);
  cmd.action(cli.action((...params: unknown[]) => runCommand(cli, op, form, params)));
}

/** An argument's option, parsed as its schema says: a whole number at least its minimum, a repeatable list, a switch or a string. */
function addOption(cmd: Command, op: Operation, key: string, option: CliOption): void {
  if (option.flag) {
    cmd.option(option.flag, option.help);
    return;
  }
  const property = op.args.properties[key];
  if (property === undefined || typeof property === 'boolean') throw new ZkError('internal', `${op.name} has no argument ${key} for its option`);
  const flag = flagOf(key);
  const spec = option.value ? `${flag} ${option.value}` : flag;
  if (property.type === 'integer') cmd.option(spec, option.help, intOption(flag, typeof property.minimum === 'number' ? property.minimum : 0));
  else if (property.type === 'array') cmd.option(spec, option.help, collect);
  else cmd.option(spec, option.help);
}

/** Run one command: its arguments from the positions and the options, checked, then the operation and what it says beside. */
async function runCommand(cli: Invocation, op: Operation, form: CliForm, params: unknown[]): Promise<CommandResult> {
  // Commander hands the positional arguments, then the options, then the command.
  const flags = params[params.length - 2] as Record<string, unknown>;
  const args: Args = { ...positionalArgs(op, form, params) };
  const switches: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(form.options)) {
    const value = flags[attributeOf(key)];
    if (option.flag) switches[key] = value;
    else if (value !== undefined) args[key] = value;
  }
  check(op, form, args);
  const io = current().io;
  const progress = form.progress === undefined ? undefined : (line: string) => io.stderr(`${form.progress}: ${line}\n`);
  const r = await op.run(cli.root(), args, { ...CLI_NAMES, progress, switches });
  // Said on stderr: stdout stays the answer, which scripts read.
  for (const line of [...(r.remarks ?? []), ...(form.warnings?.(r.json) ?? [])]) io.stderr(`warning: ${line}\n`);
  return { json: { ...r.json }, text: r.text, exitCode: form.exitCode?.(r.json), ...(r.failed ? { ok: false } : {}) };
}

/**
 * The positional arguments by name: the words of a variadic one joined by a space, and the one
 * that may come from stdin read from there when it is `-` (or, but for words, left out while stdin
 * is piped). A required one stdin did not give is empty, for the operation to say what is missing.
 */
function positionalArgs(op: Operation, form: CliForm, params: unknown[]): Args {
  const args: Args = {};
  for (const [i, spec] of (form.positionals ?? []).entries()) {
    const key = spec.replace(/[<>[\].]/g, '');
    const fromStdin = key === form.stdin;
    const value = params[i];
    if (Array.isArray(value)) {
      // A query read from stdin is trimmed of the line break that ends it.
      args[key] = fromStdin && value.length === 1 && value[0] === '-' ? (textArg('-') ?? '').trim() : value.join(' ');
      continue;
    }
    const text = fromStdin ? (textArg(value as string | undefined) ?? (op.args.required.includes(key) ? '' : undefined)) : value;
    if (text !== undefined) args[key] = text;
  }
  return args;
}

/**
 * The command's arguments checked as the operation's schema says, with the one validator. A value
 * outside an enum is left to the library, which checks it on every surface and words it as
 * docs/errors.md says (`unknown kind: …`).
 */
function check(op: Operation, form: CliForm, args: Args): void {
  // A required option given empty (`--by ''`) is left out, as its message says.
  for (const [key, option] of Object.entries(form.options)) if (option.missing && args[key] === '') delete args[key];
  const problem = schemaProblems(op.args, args).find((p) => p.keyword !== 'enum');
  if (problem) throw new ZkError('usage', problemText(form, problem));
}

/** A validation problem in the command line's words: a required option left out in its own. */
function problemText(form: CliForm, p: SchemaProblem): string {
  if (p.keyword === 'required') {
    const key = (p.params as { missingProperty: string }).missingProperty;
    return form.options[key]?.missing ?? `${flagOf(key)} is required`;
  }
  const key = p.instancePath.slice(1).split('/')[0];
  return `${key ? flagOf(key) : 'arguments'} ${p.message ?? 'is invalid'}`;
}
