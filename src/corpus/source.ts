import { settings } from '../context.js';

/** The source of a write or merge: the flag, else ZK_MEMORY_SOURCE. */
export function defaultSource(flag?: string): string | undefined {
  const s = (flag ?? settings().source() ?? '').trim();
  return s || undefined;
}
