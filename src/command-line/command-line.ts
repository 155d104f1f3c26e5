import type { Io } from '../context.js';
import type { ResidentState } from '../ports.js';

// What a command line is to those who run one without being the command line: the resident
// server answers a call by running the command line it is handed (src/commands/serve.ts hands it
// src/cli.ts `main`), and imports nothing of the command line itself.

/** The two ends of an MCP session's connection. */
export interface McpStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** How a command line is run, beyond its arguments, input, output and environment. */
export interface CommandLineOptions {
  /** The resident server's resident state (src/server/serve.ts), for a call it answers. */
  resident?: ResidentState;
  /** The call is answered by the resident server: said in the `--json` answer of the commands it serves. */
  served?: boolean;
  /** The connection an MCP session runs on, when not the process's stdin and stdout. */
  streams?: McpStreams;
  /**
   * When the time the call may take began, on the monotonic clock (`performance.now()`): 0 for a
   * process of its own, whose start counts against a hook host's patience; else when `main` began.
   */
  startedAt?: number;
}

/** Run a command line with its own input, output and environment; resolves to its exit code. */
export type CommandLine = (argv: string[], io: Io, env: Record<string, string | undefined>, o: CommandLineOptions) => Promise<number>;
