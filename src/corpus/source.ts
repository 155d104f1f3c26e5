/** The source of a write or merge: the flag, else ZK_MEMORY_SOURCE. */
export function defaultSource(flag?: string): string | undefined {
  const s = (flag ?? process.env.ZK_MEMORY_SOURCE ?? '').trim();
  return s || undefined;
}
