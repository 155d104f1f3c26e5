import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { KINDS } from '../api/vocabulary.js';

/** What an operation may be passed: an object of named arguments, each with its own schema, and no others. */
export interface ArgsSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, JSONSchema>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/** An operation's arguments as a surface hands them over: checked against its schema first (src/validate.ts). */
export type Args = Record<string, unknown>;

/** What an operation answers: the result object (as `--json` prints it) and its text for people. */
export interface Answer<R extends object = object> {
  json: R;
  text: string;
  /** The call could not do what was asked, though it answered (a partial retain). */
  failed?: boolean;
  /** Said beside the answer (a similar note a write found): MCP adds them to its text as notes, the command line warns on stderr. */
  remarks?: string[];
}

/** What the surface that runs an operation brings beside its arguments. */
export interface OperationCall {
  /** How the surface names an argument in a message: `--as-of` on the command line, `as_of` over MCP (`"as_of"` quoted). */
  argName(key: string, quoted?: boolean): string;
  /** Where a long operation says how it is getting on, when the surface shows it (the command line's stderr). */
  progress?: (line: string) => void;
  /** The surface's own switches that are no arguments of the operation (the command line's `--no-links`). */
  switches: Readonly<Record<string, unknown>>;
}

/** How the command line shows one argument, or one switch of its own: its placeholder and help. */
export interface CliOption {
  /** The value's placeholder (`<n>`); none for a switch. */
  value?: string;
  help: string;
  /** An option of the command line's own, no argument of the operation (`--no-links`): handed to `run` in `switches`. */
  flag?: string;
  /** The message when a required argument given as an option is left out (or given empty): the validator finds it missing. */
  missing?: string;
}

/**
 * What the command line adds to an operation: how its arguments are given (positionally, or as
 * `--kebab-case` options derived from the schema), the help it shows, the flags it adds, and what it
 * says beside the answer (src/cli/operation-command.ts renders it).
 */
export interface CliForm<R extends object = object> {
  /** The arguments given positionally, in commander's syntax: `<ref>`, `[fragment]`, `<query...>` (words joined by a space). */
  positionals?: readonly string[];
  /** The positional argument that may come from stdin: when it is `-`, or left out while stdin is piped. */
  stdin?: string;
  description: string;
  /** The options in the order help lists them, by the argument's name (`as_of` is `--as-of`), or a switch of its own. */
  options: Readonly<Record<string, CliOption>>;
  /** Takes the LLM flags (a judged write), `--commit` (a write), the embedding flags (a search); help lists them in that order. */
  llm?: boolean;
  commit?: boolean;
  embed?: boolean;
  /** Progress lines go to stderr, after this prefix. */
  progress?: string;
  /** Warnings for stderr beside the answer. */
  warnings?: (json: R) => string[];
  /** The exit code of an answer (default 0). */
  exitCode?: (json: R) => number;
}

/** One operation, which every surface renders: its name, what its caller is told, its arguments and the library call it makes. */
export interface Operation<S extends ArgsSchema = ArgsSchema, A = Args, R extends object = object> {
  name: string;
  description: string;
  args: S;
  /** Reads only: MCP's read-only hint, and all a read-only caller may call. */
  readOnly?: boolean;
  /** Only offered when an LLM is configured. */
  needsLlm?: boolean;
  /** What it writes comes from the caller: redacted first when ZK_MEMORY_REDACT is on (src/pipelines/redact.ts). */
  redacts?: boolean;
  /** Only offered when the corpus is in a git work tree. */
  needsGit?: boolean;
  run(root: string, args: A, call: OperationCall): Promise<Answer<R>>;
  /** Values MCP gives arguments its caller leaves out (an agent reads a page of what the command line lists whole), by the schema's names. */
  mcpDefaults?: Readonly<Partial<Record<keyof S['properties'], unknown>>>;
  cli?: CliForm<R>;
}

/**
 * An operation whose `run` takes its arguments typed as its schema says: the schema is written once,
 * and the check of a call (src/validate.ts) and the types of its arguments both come from it.
 */
export function operation<const S extends ArgsSchema, R extends object>(spec: Operation<S, NoInfer<FromSchema<S>>, R>): Operation {
  // Every surface checks a call's arguments against this very schema before it runs the operation,
  // so they are what `FromSchema<S>` says by then.
  return spec as unknown as Operation;
}

// The pieces every schema of arguments is made of.
export const str = (description: string) => ({ type: 'string', description }) as const;
export const bool = (description: string) => ({ type: 'boolean', description }) as const;
export const int = (description: string) => ({ type: 'integer', minimum: 1, description }) as const;
export const list = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
/** A note kind, as the corpus knows them (src/corpus/note/kinds.ts). */
export const kindProperty = (description?: string) => ({ type: 'string', enum: KINDS, ...(description ? { description } : {}) }) as const;
/** The kind argument of the operations that write or filter notes. */
export const kind = kindProperty('concept (an idea), entity_update (a fact about a person, thing or project), decision (a choice made)');
export const backends = ['auto', 'rg', 'fts', 'vector', 'hybrid'] as const;

/** An operation's schema of arguments: these, the `required` ones among them, no others. */
export function schema<const P extends Record<string, JSONSchema>, const R extends readonly (keyof P & string)[] = []>(properties: P, required?: R) {
  return { type: 'object', properties, required: required ?? ([] as unknown as R), additionalProperties: false } as const;
}

/** The answer of most operations: their result, and its text. */
export const answer = <R extends object>(json: R, text: string): Answer<R> => ({ json, text });
