import { ZkError } from '../../errors.js';

// The kinds of note, apart from the note format so that checking a kind loads no parser.

/** The kinds of memory a writer (or the judge) chooses among. */
export const KINDS = ['concept', 'entity_update', 'decision'] as const;
/** Kinds of record kept as it was, not distilled: a conversation imported verbatim. Never the judge's choice. */
export const RECORD_KINDS = ['conversation'] as const;
export type Kind = (typeof KINDS)[number] | (typeof RECORD_KINDS)[number];

const ALL: readonly string[] = [...KINDS, ...RECORD_KINDS];

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && ALL.includes(value);
}

/**
 * The kind as the one string of this module: a long-running process keeps a kind per note, and
 * each read from a cache file is a string of its own.
 */
export function sharedKind(kind: Kind): Kind {
  return (ALL.find((k) => k === kind) as Kind | undefined) ?? kind;
}

export function checkKind(kind: string | undefined): Kind | undefined {
  if (kind === undefined || kind === '') return undefined;
  if (!isKind(kind)) throw new ZkError('usage', `unknown kind: ${JSON.stringify(kind)} (one of ${KINDS.join(', ')})`);
  return kind;
}
