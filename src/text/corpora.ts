import type { NamedCorpus } from '../api/corpora.js';

export function corporaText(corpora: NamedCorpus[]): string {
  if (!corpora.length) return 'no corpora registered: add one with `zk-memory corpus add NAME DIR`';
  const width = Math.max(...corpora.map((c) => c.name.length));
  return corpora.map((c) => `${c.name.padEnd(width)}  ${c.root}`).join('\n');
}
