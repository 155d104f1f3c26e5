import type { TokenInfo } from '../api/tokens.js';

/** The new token first, alone on its line, so a script can take it with `head -1`. */
export function createdText(t: TokenInfo & { token: string }): string {
  return `${t.token}\n(the token for ${t.name}${t.read_only ? ', read-only' : ''}: shown this once; send it as "Authorization: Bearer TOKEN")`;
}

export function tokensText(tokens: TokenInfo[]): string {
  if (!tokens.length) return 'no tokens: make one with `zk-memory token create NAME`';
  return tokens.map((t) => `${t.name}  ${t.read_only ? 'read-only' : 'read-write'}  created ${t.created}`).join('\n');
}
