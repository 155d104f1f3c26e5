import crypto from 'node:crypto';
import fs from 'node:fs';
import { ZkError } from '../errors.js';
import { readRegistry } from '../corpus/registry.js';
import { adoptCorpusTokens, readEveryStore, readTokens, rewriteStore, withTokenStore, writeTokens, type KeptToken, type TokenInfo } from './token-store.js';
import { now } from '../context.js';

// The bearer tokens MCP over HTTP accepts (docs/http.md). Only a token's sha256 is kept, outside
// the corpus, in one file per corpus (src/api/token-store.ts): a corpus's file is all that decides
// who may open it. A token made for several corpora is kept in each of their files, by the same
// hash; revoking it takes it out of every one. The token itself is shown once, when it is made.
// The store is read again for every request, so a revoked token stops working at once.

export type { TokenInfo };

/** A corpus a token opens: its real path, and its name when it is registered (`corpus add`). */
export interface TokenScope {
  root: string;
  name: string | null;
}

/** A token as `token list` shows it: who holds it, its rights, and every corpus it opens. */
export interface ScopedToken extends TokenInfo {
  corpora: TokenScope[];
}

/** A token name: what a `source` may be, short and plain. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Tokens carry a prefix, so one pasted into the wrong place is recognisable, and 256 random bits. */
const PREFIX = 'zkm_';

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

/** Under the store's lock, with the tokens an older version kept in these corpora moved into the store first. */
const withTokens = <T>(roots: string[], fn: () => T) =>
  withTokenStore(async () => {
    for (const root of roots) await adoptCorpusTokens(root);
    return fn();
  });

const rootsOf = (root: string | string[]) => (typeof root === 'string' ? [root] : root);

const info = ({ name, read_only, created }: KeptToken): TokenInfo => ({ name, read_only, created });

function realPath(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return root;
  }
}

/** The corpora each kept token (by its hash) opens, named as the registry names them. */
function scopesByHash(): Map<string, TokenScope[]> {
  const names = new Map(readRegistry().map((c) => [c.root, c.name]));
  const scopes = new Map<string, TokenScope[]>();
  for (const store of readEveryStore()) {
    for (const t of store.tokens) scopes.set(t.sha256, [...(scopes.get(t.sha256) ?? []), { root: store.corpus, name: names.get(store.corpus) ?? null }]);
  }
  const order = (x: TokenScope, y: TokenScope) => (x.name ?? '\uffff').localeCompare(y.name ?? '\uffff') || x.root.localeCompare(y.root);
  for (const list of scopes.values()) list.sort(order);
  return scopes;
}

/** Make a token for `name` that opens the corpora at `roots` (one or more): the only time the token itself is seen. */
export async function createToken(
  root: string | string[],
  name: string,
  o: { readOnly?: boolean } = {},
): Promise<TokenInfo & { token: string; corpora: string[] }> {
  if (!NAME.test(name))
    throw new ZkError('usage', `invalid token name ${JSON.stringify(name)}: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit`);
  const corpora = [...new Set(rootsOf(root).map(realPath))];
  return withTokens(corpora, () => {
    for (const root of corpora)
      if (readTokens(root).some((t) => t.name === name))
        throw new ZkError('exists', `a token named ${name} opens ${root} already: revoke it first to make a new one`);
    const token = PREFIX + crypto.randomBytes(32).toString('base64url');
    const made: KeptToken = { name, read_only: Boolean(o.readOnly), created: new Date(now()).toISOString(), sha256: hashOf(token).toString('hex') };
    for (const root of corpora) writeTokens(root, [...readTokens(root), made]);
    return { ...info(made), token, corpora };
  });
}

/** The tokens that open any of the corpora at `roots` (every kept token with `all`), each with every corpus it opens. */
export async function listTokens(root: string | string[], o: { all?: boolean } = {}): Promise<ScopedToken[]> {
  const roots = rootsOf(root);
  return withTokens(roots, () => {
    const scopes = scopesByHash();
    const kept = o.all ? readEveryStore().flatMap((s) => s.tokens) : roots.flatMap((root) => readTokens(root));
    const seen = new Set<string>();
    return kept.filter((t) => !seen.has(t.sha256) && seen.add(t.sha256)).map((t) => ({ ...info(t), corpora: scopes.get(t.sha256) ?? [] }));
  });
}

/**
 * Revoke the token named `name` in the corpora at `roots`: it is taken out of every corpus it
 * opens, and a running server refuses it from its next request on.
 */
export async function revokeToken(root: string | string[], name: string): Promise<ScopedToken> {
  const roots = rootsOf(root);
  return withTokens(roots, () => {
    const gone = roots.flatMap((root) => readTokens(root)).filter((t) => t.name === name);
    if (!gone.length) throw new ZkError('not_found', `no token named ${JSON.stringify(name)}`);
    const hashes = new Set(gone.map((t) => t.sha256));
    const scopes = scopesByHash();
    for (const store of readEveryStore()) {
      if (store.tokens.some((t) => hashes.has(t.sha256)))
        rewriteStore(
          store,
          store.tokens.filter((t) => !hashes.has(t.sha256)),
        );
    }
    return { ...info(gone[0]), corpora: [...hashes].flatMap((h) => scopes.get(h) ?? []) };
  });
}

/**
 * Who holds `token` in the corpus at `root`, or undefined when no token kept for it is `token`.
 * Every kept hash is compared, in constant time, so the answer's timing says nothing of how close
 * a guess came.
 */
export function tokenHolder(root: string, token: string): TokenInfo | undefined {
  const presented = hashOf(token);
  let found: KeptToken | undefined;
  for (const t of readTokens(root)) if (crypto.timingSafeEqual(presented, Buffer.from(t.sha256, 'hex'))) found = t;
  return found && info(found);
}
