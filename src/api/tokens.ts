import crypto from 'node:crypto';
import fs from 'node:fs';
import { ZkError } from '../errors.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import { sidecar } from '../corpus/files/paths.js';
import { writeTemp } from '../corpus/files/files.js';
import { withCorpusLock } from '../corpus/lock/lock.js';

// The bearer tokens MCP over HTTP accepts (docs/http.md). Only a token's sha256 is kept, in
// `.zk/tokens.json` (mode 0600, kept out of git by `.zk/.gitignore`); the token itself is shown once,
// when it is made. The file is read again for every request, so a revoked token stops working on a
// running server at once.

/** A token as it is kept and listed: never the token itself. */
export interface TokenInfo {
  /** Who holds it: the `source` of everything its client writes. */
  name: string;
  read_only: boolean;
  created: string;
}

interface KeptToken extends TokenInfo {
  sha256: string;
}

/** A token name: what a `source` may be, short and plain. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Tokens carry a prefix, so one pasted into the wrong place is recognisable, and 256 random bits. */
const PREFIX = 'zkm_';

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

function validKept(t: unknown): t is KeptToken {
  const k = t as KeptToken;
  return typeof k?.name === 'string' && typeof k.read_only === 'boolean' && typeof k.created === 'string' && /^[0-9a-f]{64}$/.test(k.sha256);
}

/** The kept tokens; none when there is no file. A file that is not a plain file, or not ours to read, is refused. */
function readTokens(root: string): KeptToken[] {
  const file = sidecar(root).tokens;
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isFile()) throw new ZkError('io', `${file} is not a plain file: remove it and make the tokens again`);
  let kept: unknown;
  try {
    kept = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw new ZkError('io', `${file} is damaged: remove it and make the tokens again`);
  }
  if (!Array.isArray(kept) || !kept.every(validKept)) throw new ZkError('io', `${file} is damaged: remove it and make the tokens again`);
  return kept;
}

/** Replace the token file (mode 0600) under the corpus lock's protection. */
function writeTokens(root: string, tokens: KeptToken[]): void {
  ensureSidecar(root);
  const file = sidecar(root).tokens;
  const tmp = writeTemp(file, `${JSON.stringify(tokens, null, 1)}\n`, 0o600);
  try {
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

const info = ({ name, read_only, created }: KeptToken): TokenInfo => ({ name, read_only, created });

/** Make a token for `name`: the only time the token itself is seen. */
export async function createToken(root: string, name: string, o: { readOnly?: boolean } = {}): Promise<TokenInfo & { token: string }> {
  if (!NAME.test(name)) throw new ZkError('usage', `invalid token name ${JSON.stringify(name)}: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit`);
  return withCorpusLock(root, () => {
    const tokens = readTokens(root);
    if (tokens.some((t) => t.name === name)) throw new ZkError('exists', `a token named ${name} exists: revoke it first to make a new one`);
    const token = PREFIX + crypto.randomBytes(32).toString('base64url');
    const made: KeptToken = { name, read_only: Boolean(o.readOnly), created: new Date().toISOString(), sha256: hashOf(token).toString('hex') };
    writeTokens(root, [...tokens, made]);
    return { ...info(made), token };
  });
}

export function listTokens(root: string): TokenInfo[] {
  return readTokens(root).map(info);
}

/** Revoke the token of `name`: a running server refuses it from its next request on. */
export async function revokeToken(root: string, name: string): Promise<TokenInfo> {
  return withCorpusLock(root, () => {
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
