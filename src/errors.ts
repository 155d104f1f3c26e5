/** Exit codes shared by every command (docs/errors.md). */
export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  llm: 3,
  busy: 4,
  /** A write whose outcome is not known (the server that took it stopped before answering): look before writing again, never retry blindly. */
  unknown: 5,
  /** A bug, not the corpus or the machine: scripts that retry on 4 must not retry this. EX_SOFTWARE of sysexits.h. */
  internal: 70,
} as const;

export type ErrorCode =
  | 'not_found'
  | 'ambiguous_ref'
  | 'invalid_ref'
  | 'exists'
  | 'invalid_slug'
  | 'refused'
  | 'usage'
  | 'no_root'
  | 'llm_unconfigured'
  | 'llm_failed'
  | 'llm_unreachable'
  | 'busy'
  | 'lease_held'
  | 'no_server'
  | 'remote_unreachable'
  | 'merge_conflict'
  | 'unsafe_remote'
  | 'io'
  | 'outcome_unknown'
  | 'internal';

const EXIT_OF: Record<ErrorCode, number> = {
  not_found: EXIT.refused,
  ambiguous_ref: EXIT.refused,
  invalid_ref: EXIT.refused,
  exists: EXIT.refused,
  invalid_slug: EXIT.refused,
  refused: EXIT.refused,
  usage: EXIT.usage,
  no_root: EXIT.usage,
  llm_unconfigured: EXIT.llm,
  llm_failed: EXIT.llm,
  llm_unreachable: EXIT.llm,
  busy: EXIT.busy,
  lease_held: EXIT.busy,
  no_server: EXIT.busy,
  remote_unreachable: EXIT.busy,
  merge_conflict: EXIT.refused,
  unsafe_remote: EXIT.refused,
  io: EXIT.busy,
  outcome_unknown: EXIT.unknown,
  internal: EXIT.internal,
};

/** An expected failure: a one-line message and the exit code it maps to. */
export class ZkError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    // One line, whatever input the message quotes: a line break in it is shown as `\n`.
    super(message.replace(/\r\n|\r|\n/g, '\\n'), options);
    this.code = code;
    this.exitCode = EXIT_OF[code];
    this.details = details;
  }
}

/** The JSON every surface answers with when a call fails. */
export function errorJson(e: ZkError): Record<string, unknown> {
  return { ok: false, error: { code: e.code, message: e.message, ...(e.details ?? {}) } };
}

/**
 * Turn any thrown value into a ZkError, keeping it as the `cause`: a failure of the file system
 * (an errno code such as ENOENT, EACCES, ENOSPC, EIO, EMFILE, on the error or its cause) becomes an
 * `io` error (exit 4, which scripts may retry); anything else is a bug, `internal` (exit 70).
 */
export function asZkError(err: unknown): ZkError {
  if (err instanceof ZkError) return err;
  const sys = errnoOf(err);
  if (sys) {
    const where = sys.path ? ` (${sys.path})` : '';
    return new ZkError('io', `${ioReason(sys.code)}${where}`, undefined, { cause: err });
  }
  const e = err as Error | undefined;
  const message = e && typeof e.message === 'string' ? e.message.split('\n')[0] : String(err);
  return new ZkError('internal', message, undefined, { cause: err });
}

/**
 * The stack to print on stderr (never on stdout, nor into a protocol) for a failure that is a bug:
 * an `internal` error's, or its cause's. Undefined for the failures the tool expects (a ZkError of
 * any other code, a file-system error) unless `debug` asks for every stack.
 */
export function bugStack(err: unknown, debug = false): string | undefined {
  const e = asZkError(err);
  if (e.code !== 'internal' && !(debug && !(err instanceof ZkError))) return undefined;
  const origin = err instanceof ZkError && err.cause !== undefined ? err.cause : err;
  return origin instanceof Error && origin.stack ? origin.stack : String(origin);
}

/** The system error a thrown value is, or was caused by (`fetch failed` wraps ECONNREFUSED, say). */
function errnoOf(err: unknown): { code: string; path?: string } | undefined {
  for (
    let e = err as NodeJS.ErrnoException | undefined, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = e.cause as NodeJS.ErrnoException | undefined, depth++
  ) {
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return { code: e.code, path: e.path };
  }
  return undefined;
}

function ioReason(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'corpus is not writable';
    case 'ENOSPC':
      return 'no space left on device';
    case 'ENOENT':
      return 'file not found';
    default:
      return `I/O error ${code}`;
  }
}
