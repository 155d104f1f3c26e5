import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { tempCorpus, tempDir, zkProcess } from './helpers/corpus.js';
import { httpMcpClient, serveTwoCorpora, stoppedAfterEach } from './helpers/mcp.js';
import { until } from './helpers/wait.js';

// OAuth 2.1 for web clients (docs/http.md#oauth), as such a client goes through it against
// `serve --http --oauth` in a process of its own: metadata, dynamic registration, the consent page
// (a one-time code from `token approve`, then corpora and rights), the code exchanged with PKCE,
// refresh, and the grant revoked by its name. Authorization codes expire after 2 s here
// (ZK_MEMORY_OAUTH_CODE_SECONDS), so a test waits seconds, not minutes, for one to expire.

const { running, clients } = stoppedAfterEach();

const REDIRECT = 'http://127.0.0.1:9/callback';

async function oauthServer() {
  const { env, alpha, beta, url } = await serveTwoCorpora(running, { env: { ZK_MEMORY_OAUTH_CODE_SECONDS: '2' }, args: ['--oauth'] });
  return { env, alpha, beta, mcp: url, issuer: new URL('/', url) };
}

type Server = Awaited<ReturnType<typeof oauthServer>>;

/** What the owner does on the consent page: the one-time code from `token approve`, then the grant. Answers the redirect's URL. */
async function consent(s: Server, authorizationUrl: URL, grant: { name: string; corpora: string[]; readOnly?: boolean }, code?: string): Promise<URL> {
  const pageHtml = await (await fetch(authorizationUrl)).text();
  const id = /name="consent" value="([^"]+)"/.exec(pageHtml)?.[1];
  expect(id, pageHtml).toBeDefined();
  const approve = code ?? (await zkProcess(['token', 'approve'], { env: s.env })).stdout.split('\n')[0];
  const post = (fields: [string, string][]) =>
    fetch(new URL('/consent', s.issuer), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.issuer.origin },
      body: new URLSearchParams(fields).toString(),
    });
  const second = await post([
    ['consent', id!],
    ['code', approve],
  ]);
  const grantHtml = await second.text();
  expect(second.status, grantHtml).toBe(200);
  const done = await post([
    ['consent', id!],
    ['step', 'grant'],
    ['name', grant.name],
    ...grant.corpora.map((c): [string, string] => ['corpus', c]),
    ...(grant.readOnly ? [['read_only', '1'] as [string, string]] : []),
  ]);
  expect(done.status).toBe(302);
  return new URL(done.headers.get('location')!);
}

describe('OAuth 2.1', () => {
  it('a client discovers, registers, is granted one corpus with PKCE, uses and refreshes the grant; the grant is a named token, listed and revoked like any other', async () => {
    const s = await oauthServer();
    // unauthenticated, the resource says where its authorization server is
    const bare = await fetch(`${s.mcp}/alpha`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toContain(`resource_metadata="${s.issuer.origin}/.well-known/oauth-protected-resource/mcp/alpha"`);
    const resource = await discoverOAuthProtectedResourceMetadata(s.mcp);
    expect(resource.authorization_servers).toEqual([s.issuer.href]);
    const metadata = (await discoverAuthorizationServerMetadata(s.issuer))!;
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    const client = await registerClient(s.issuer, {
      metadata,
      clientMetadata: {
        client_name: 'Web Chat',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    });

    const { authorizationUrl, codeVerifier } = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT, state: 'xyz' });
    const back = await consent(s, authorizationUrl, { name: 'web-chat', corpora: ['beta'] });
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('xyz');
    const code = back.searchParams.get('code')!;

    // a wrong verifier is refused, and the right one still works
    await expect(
      exchangeAuthorization(s.issuer, { metadata, clientInformation: client, authorizationCode: code, codeVerifier: 'x'.repeat(64), redirectUri: REDIRECT }),
    ).rejects.toThrow(/code_verifier|PKCE|invalid_grant/i);
    const tokens = await exchangeAuthorization(s.issuer, { metadata, clientInformation: client, authorizationCode: code, codeVerifier, redirectUri: REDIRECT });
    expect(tokens.access_token).toMatch(/^zkm_/);

    // the grant opens beta, and only beta, as web-chat
    const listed = await zkProcess(['--json', 'token', 'list', '--all'], { env: s.env });
    expect(listed.json.tokens.map((t: any) => [t.name, t.read_only, t.corpora.map((c: any) => c.name)])).toEqual([['web-chat', false, ['beta']]]);
    const b = await httpMcpClient(`${s.mcp}/beta`, tokens.access_token);
    clients.push(b);
    const w = (await b.callTool({ name: 'write', arguments: { slug: 'heron', title: 'Heron', body: 'Herons wait.' } })) as any;
    expect(w.structuredContent.note.author).toBe('web-chat');
    expect(
      (
        await fetch(`${s.mcp}/alpha`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{}',
        })
      ).status,
    ).toBe(404);

    // refresh: a new token under the same name; the old one stops working
    const renewed = await refreshAuthorization(s.issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token! });
    expect(renewed.access_token).not.toBe(tokens.access_token);
    await expect(b.callTool({ name: 'list', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
    const b2 = await httpMcpClient(`${s.mcp}/beta`, renewed.access_token);
    clients.push(b2);
    expect(((await b2.callTool({ name: 'list', arguments: {} })) as any).structuredContent.notes.map((n: any) => n.title)).toEqual(['Heron']);
    // the old refresh token was used up
    await expect(refreshAuthorization(s.issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token! })).rejects.toThrow(
      /invalid_grant|not valid/i,
    );

    // revoked by its name: the token is refused on its next request, and the refresh token no longer renews it
    expect((await zkProcess(['--corpus', 'beta', 'token', 'revoke', 'web-chat'], { env: s.env })).code).toBe(0);
    await expect(b2.callTool({ name: 'list', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
    await expect(refreshAuthorization(s.issuer, { metadata, clientInformation: client, refreshToken: renewed.refresh_token! })).rejects.toThrow(
      /invalid_grant|revoked/i,
    );

    // a code sent a second time is refused, and what it was exchanged for is revoked (it may have been stolen)
    const other = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT });
    const otherCode = (await consent(s, other.authorizationUrl, { name: 'web-chat-2', corpora: ['beta'] })).searchParams.get('code')!;
    const first = await exchangeAuthorization(s.issuer, {
      metadata,
      clientInformation: client,
      authorizationCode: otherCode,
      codeVerifier: other.codeVerifier,
      redirectUri: REDIRECT,
    });
    await expect(
      exchangeAuthorization(s.issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: otherCode,
        codeVerifier: other.codeVerifier,
        redirectUri: REDIRECT,
      }),
    ).rejects.toThrow(/invalid_grant|not valid/i);
    await until(
      "the replayed code's grant is revoked",
      async () =>
        (
          await fetch(`${s.mcp}/beta`, {
            method: 'POST',
            headers: { authorization: `Bearer ${first.access_token}`, 'content-type': 'application/json' },
            body: '{}',
          })
        ).status === 401,
      10_000,
    );
    expect((await zkProcess(['--json', 'token', 'list', '--all'], { env: s.env })).json.tokens).toEqual([]);
  }, 180_000);

  it('refuses a redirect URI not registered exactly, a wrong or used one-time code, and a code past its time; a read-only grant cannot write', async () => {
    const s = await oauthServer();
    const metadata = (await discoverAuthorizationServerMetadata(s.issuer))!;
    const client = await registerClient(s.issuer, {
      metadata,
      clientMetadata: {
        client_name: 'Phone',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    });

    // a foreign redirect URI, or the registered one on another port, gets no consent page and no redirect
    for (const foreign of ['https://evil.example/callback', 'http://127.0.0.1:10/callback']) {
      const { authorizationUrl } = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: foreign });
      const r = await fetch(authorizationUrl, { redirect: 'manual' });
      expect(r.status).toBe(400);
      expect(await r.text()).not.toContain('name="consent"');
    }

    // a wrong one-time code, and one used already, are refused on the page
    const { authorizationUrl } = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT });
    const html = await (await fetch(authorizationUrl)).text();
    const id = /name="consent" value="([^"]+)"/.exec(html)![1];
    const post = (code: string) =>
      fetch(new URL('/consent', s.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ consent: id, code }).toString(),
      });
    const wrong = await post('AAAA-AAAA-AAAA-AAAA');
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain('alpha');
    const once = (await zkProcess(['token', 'approve'], { env: s.env })).stdout.split('\n')[0];
    expect((await post(once)).status).toBe(200);
    const { authorizationUrl: again } = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT });
    const againId = /name="consent" value="([^"]+)"/.exec(await (await fetch(again)).text())![1];
    expect(
      (
        await fetch(new URL('/consent', s.issuer), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ consent: againId, code: once }).toString(),
        })
      ).status,
    ).toBe(403);

    // a code not exchanged within its time is refused
    const late = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT });
    const lateCode = (await consent(s, late.authorizationUrl, { name: 'late', corpora: ['alpha'] })).searchParams.get('code')!;
    await new Promise((r) => setTimeout(r, 2500));
    await expect(
      exchangeAuthorization(s.issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: lateCode,
        codeVerifier: late.codeVerifier,
        redirectUri: REDIRECT,
      }),
    ).rejects.toThrow(/invalid_grant|not valid/i);

    // a read-only grant reads and cannot write
    const ro = await startAuthorization(s.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT });
    const roCode = (await consent(s, ro.authorizationUrl, { name: 'phone', corpora: ['alpha'], readOnly: true })).searchParams.get('code')!;
    const tokens = await exchangeAuthorization(s.issuer, {
      metadata,
      clientInformation: client,
      authorizationCode: roCode,
      codeVerifier: ro.codeVerifier,
      redirectUri: REDIRECT,
    });
    const a = await httpMcpClient(s.mcp, tokens.access_token);
    clients.push(a);
    expect(((await a.callTool({ name: 'overview', arguments: {} })) as any).structuredContent.ok).toBe(true);
    await expect(a.callTool({ name: 'write', arguments: { slug: 'x', title: 'X', body: 'y' } })).rejects.toThrow(/read-only/);
    expect(fs.readdirSync(s.alpha).filter((f) => f.endsWith('.md'))).toEqual([]);
  }, 180_000);

  it('--oauth needs an issuer clients accept: https through --public-url, TLS, or loopback; --public-url takes an address with no path', async () => {
    const root = tempCorpus();
    const env = {
      XDG_RUNTIME_DIR: (() => {
        const d = tempDir('zk-rt-');
        fs.chmodSync(d, 0o700);
        return d;
      })(),
    };
    const wide = await zkProcess(['--json', 'serve', '--root', root, '--http', '0.0.0.0:0', '--allow-remote', '--oauth'], { env });
    expect([wide.code, wide.json.error.message]).toEqual([
      2,
      '--oauth needs --public-url https://… (the address clients reach the server by), or --tls-cert, or 127.0.0.1',
    ]);
    const plain = await zkProcess(['--json', 'serve', '--root', root, '--http', '127.0.0.1:0', '--oauth', '--public-url', 'http://memory.example.net'], {
      env,
    });
    expect([plain.code, plain.json.error.message]).toEqual([2, '--public-url must be https (OAuth clients refuse a plain-HTTP issuer)']);
    const pathy = await zkProcess(
      ['--json', 'serve', '--root', root, '--http', '127.0.0.1:0', '--oauth', '--public-url', 'https://memory.example.net/memory'],
      { env },
    );
    expect([pathy.code, pathy.json.error.message]).toEqual([2, "--public-url takes the server's address with no path: https://memory.example.net"]);
    const alone = await zkProcess(['--json', 'serve', '--root', root, '--oauth'], { env });
    expect(alone.code).toBe(2);
    expect((await zkProcess(['serve', '--status', '--json', '--root', root], { env })).json.running).toBe(false);
  }, 180_000);
});
