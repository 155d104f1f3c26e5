import { ZkError } from '../../errors.js';

// The kinds of note, apart from the note format so that checking a kind loads no parser.

export const KINDS = ['concept', 'entity_update', 'decision'] as const;
export type Kind = (typeof KINDS)[number];

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

export function checkKind(kind: string | undefined): Kind | undefined {
  if (kind === undefined || kind === '') return undefined;
  if (!isKind(kind)) throw new ZkError('usage', `unknown kind: ${JSON.stringify(kind)} (one of ${KINDS.join(', ')})`);
  return kind;
}
