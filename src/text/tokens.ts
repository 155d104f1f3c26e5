import type { ScopedToken, TokenInfo } from '../api/tokens.js';

/** The new token first, alone on its line, so a script can take it with `head -1`. */
export function createdText(t: TokenInfo & { token: string; corpora: string[] }): string {
  const scope = t.corpora.length > 1 ? `, for ${t.corpora.length} corpora` : '';
  return `${t.token}\n(the token for ${t.name}${t.read_only ? ', read-only' : ''}${scope}: shown this once; send it as "Authorization: Bearer TOKEN")`;
}

export function tokensText(tokens: ScopedToken[]): string {
  if (!tokens.length) return 'no tokens: make one with `zk-memory token create NAME`';
  const scope = (t: ScopedToken) => t.corpora.map((c) => c.name ?? c.root).join(', ');
  return tokens.map((t) => `${t.name}  ${t.read_only ? 'read-only' : 'read-write'}  ${scope(t)}  created ${t.created}`).join('\n');
}
