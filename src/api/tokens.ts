import crypto from 'node:crypto';
import { ZkError } from '../errors.js';
import { now } from '../context.js';
import { withCorpusLock } from '../corpus/lock/lock.js';
import { adoptCorpusTokens, readTokens, writeTokens, type KeptToken, type TokenInfo } from './token-store.js';

// The bearer tokens MCP over HTTP accepts (docs/http.md). Only a token's sha256 is kept, outside
// the corpus (src/api/token-store.ts); the token itself is shown once, when it is made. The store
// is read again for every request, so a revoked token stops working on a running server at once.

export type { TokenInfo };

/** A token name: what a `source` may be, short and plain. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Tokens carry a prefix, so one pasted into the wrong place is recognisable, and 256 random bits. */
const PREFIX = 'zkm_';

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

/** Under the corpus lock, with the tokens an older version kept in the corpus moved into the store first. */
const withTokens = <T>(root: string, fn: () => T) => withCorpusLock(root, async () => {
  await adoptCorpusTokens(root);
  return fn();
});

const info = ({ name, read_only, created }: KeptToken): TokenInfo => ({ name, read_only, created });

/** Make a token for `name`: the only time the token itself is seen. */
export async function createToken(root: string, name: string, o: { readOnly?: boolean } = {}): Promise<TokenInfo & { token: string }> {
  if (!NAME.test(name)) throw new ZkError('usage', `invalid token name ${JSON.stringify(name)}: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit`);
  return withTokens(root, () => {
    const tokens = readTokens(root);
    if (tokens.some((t) => t.name === name)) throw new ZkError('exists', `a token named ${name} exists: revoke it first to make a new one`);
    const token = PREFIX + crypto.randomBytes(32).toString('base64url');
    const made: KeptToken = { name, read_only: Boolean(o.readOnly), created: new Date(now()).toISOString(), sha256: hashOf(token).toString('hex') };
    writeTokens(root, [...tokens, made]);
    return { ...info(made), token };
  });
}

export async function listTokens(root: string): Promise<TokenInfo[]> {
  return withTokens(root, () => readTokens(root).map(info));
}

/** Revoke the token of `name`: a running server refuses it from its next request on. */
export async function revokeToken(root: string, name: string): Promise<TokenInfo> {
  return withTokens(root, () => {
    const tokens = readTokens(root);
    const gone = tokens.find((t) => t.name === name);
    if (!gone) throw new ZkError('not_found', `no token named ${JSON.stringify(name)}`);
    writeTokens(root, tokens.filter((t) => t !== gone));
    return info(gone);
  });
}

/**
 * Who holds `token`, or undefined when no kept token is it. Every kept hash is compared, in
 * constant time, so the answer's timing says nothing of how close a guess came.
 */
export function tokenHolder(root: string, token: string): TokenInfo | undefined {
  const presented = hashOf(token);
  let found: KeptToken | undefined;
  for (const t of readTokens(root)) if (crypto.timingSafeEqual(presented, Buffer.from(t.sha256, 'hex'))) found = t;
  return found && info(found);
}
