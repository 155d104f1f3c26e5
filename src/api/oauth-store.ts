import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { privateToUser, stateFolder, withTokenStore } from './token-store.js';
import { writePrivateJson } from '../corpus/files/files.js';

// What OAuth keeps between runs of the server (docs/http.md#oauth): the clients that registered,
// the one-time approval codes `token approve` printed (their sha256), and the grants made on the
// consent page (the sha256 of each refresh token and of the token it stands for). One file in the
// user's state folder, `oauth.json`, mode 0600, changed under the token store's lock.

/** A consent given on the server's page: the named token it became and the refresh token that renews it. */
export interface Grant {
  client_id: string;
  refresh_sha256: string;
  /** The sha256 of the bearer token the grant made last (a token of the store, listed and revocable by its name). */
  token_sha256: string;
  name: string;
  roots: string[];
  read_only: boolean;
}

interface OAuthFile {
  clients: OAuthClientInformationFull[];
  approvals: { sha256: string; expires: number }[];
  grants: Grant[];
}

export const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Whether two hex digests are equal, in constant time. */
const sameDigest = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

const oauthFile = () => path.join(stateFolder(), 'oauth.json');

function readFile(): OAuthFile {
  const file = oauthFile();
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return { clients: [], approvals: [], grants: [] };
  if (!st.isFile() || !privateToUser(st))
    throw new ZkError('io', `${file} is not this user's own plain file with mode 0600: remove it (clients register again)`);
  try {
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as OAuthFile;
    if (Array.isArray(body.clients) && Array.isArray(body.approvals) && Array.isArray(body.grants)) return body;
  } catch {
    // answered below
  }
  throw new ZkError('io', `${file} is damaged: remove it (clients register again)`);
}

function writeFile(body: OAuthFile): void {
  writePrivateJson(oauthFile(), body);
}

/** Read, change and write the file under the store's lock; approvals past their time are dropped on the way. */
function change<T>(fn: (body: OAuthFile) => T): Promise<T> {
  return withTokenStore(() => {
    const body = readFile();
    body.approvals = body.approvals.filter((a) => a.expires > now());
    const result = fn(body);
    writeFile(body);
    return result;
  });
}

/** Letters and digits that cannot be misread for one another, for a code a person types. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A one-time code for the consent page, valid for `minutes`: printed by `token approve`, kept only as its hash. */
export async function approvalCode(minutes = 10): Promise<{ code: string; expires: string }> {
  const chars = [...crypto.randomBytes(16)].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
  const code = chars.match(/.{4}/g)!.join('-');
  const expires = now() + minutes * 60_000;
  await change((body) => body.approvals.push({ sha256: sha256(code), expires }));
  return { code, expires: new Date(expires).toISOString() };
}

/** Take a one-time code: true once, for a code `approvalCode` made that has not expired. */
export function takeApproval(code: string): Promise<boolean> {
  const presented = sha256(code.trim().toUpperCase());
  return change((body) => {
    const found = body.approvals.find((a) => sameDigest(a.sha256, presented));
    if (found) body.approvals = body.approvals.filter((a) => a !== found);
    return Boolean(found);
  });
}

export async function oauthClient(id: string): Promise<OAuthClientInformationFull | undefined> {
  return withTokenStore(() => readFile().clients.find((c) => c.client_id === id));
}

export function registerOAuthClient(client: OAuthClientInformationFull): Promise<OAuthClientInformationFull> {
  return change((body) => {
    body.clients.push(client);
    return client;
  });
}

/** The grant a refresh token (or, with `by: 'token'`, a bearer token) of `clientId` stands for. */
export async function findGrant(secret: string, clientId: string, by: 'refresh' | 'token' = 'refresh'): Promise<Grant | undefined> {
  const presented = sha256(secret);
  return withTokenStore(() =>
    readFile().grants.find((g) => g.client_id === clientId && sameDigest(by === 'refresh' ? g.refresh_sha256 : g.token_sha256, presented)),
  );
}

/** Keep `grant` in place of `old` (none: a new grant); `grant` undefined drops `old`. */
export function replaceGrant(old: Grant | undefined, grant: Grant | undefined): Promise<void> {
  return change((body) => {
    body.grants = body.grants.filter((g) => !old || g.refresh_sha256 !== old.refresh_sha256);
    if (grant) body.grants.push(grant);
  });
}
