/** Exit codes shared by every command (docs/errors.md). */
export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  llm: 3,
  busy: 4,
  /** A write whose outcome is not known (the server that took it stopped before answering): look before writing again, never retry blindly. */
  unknown: 5,
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
  | 'outcome_unknown';

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
};

/** An expected failure: a one-line message and the exit code it maps to. */
export class ZkError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    // One line, whatever input the message quotes: a line break in it is shown as `\n`.
    super(message.replace(/\r\n|\r|\n/g, '\\n'));
    this.code = code;
    this.exitCode = EXIT_OF[code];
    this.details = details;
  }
}

/** The JSON every surface answers with when a call fails. */
export function errorJson(e: ZkError): Record<string, unknown> {
  return { ok: false, error: { code: e.code, message: e.message, ...(e.details ?? {}) } };
}

/** Turn any thrown value into a ZkError; file-system failures become exit-4 I/O errors. */
export function asZkError(err: unknown): ZkError {
  if (err instanceof ZkError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) {
    const where = e.path ? ` (${e.path})` : '';
    return new ZkError('io', `${ioReason(e.code)}${where}`);
  }
  const message = e && typeof e.message === 'string' ? e.message.split('\n')[0] : String(err);
  return new ZkError('io', message);
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
