import crypto from 'node:crypto';
import express, { type Express, type Response } from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { createToken, revokeToken, tokenHolder } from '../api/tokens.js';
import { readTokens } from '../api/token-store.js';
import { findGrant, oauthClient, registerOAuthClient, replaceGrant, sha256, takeApproval, type Grant } from '../api/oauth-store.js';

// OAuth 2.1 for clients that speak nothing else (docs/http.md#oauth), on the MCP SDK's auth
// router: the metadata documents, dynamic client registration, authorization code with PKCE (S256)
// and refresh. The consent is the owner's: the page asks first for a one-time code that
// `zk-memory token approve` printed on the host, then for the corpora and rights to grant and a
// name. The grant is a bearer token of the store like any other (listed, revoked by its name); a
// refresh token renews it, and fails once it is revoked. Authorization codes and consents under
// way are kept in memory only: they live for minutes.

/** A corpus the consent page offers: the key its choice sends, what it shows, and its root. */
export interface OfferedCorpus {
  key: string;
  label: string;
  root: string;
}

export interface OAuthOptions {
  /** The server's public address (the issuer), as clients reach it. */
  issuer: URL;
  /** The corpora this server serves, as the consent page offers them. */
  corpora(): OfferedCorpus[];
  /** How long an authorization code may wait for its exchange (ms). */
  codeTtlMs: number;
  /** Where the server's own failures are said (its stderr). */
  log(line: string): void;
}

/** How long a consent under way may take, and how many wrong one-time codes it may be sent. */
const CONSENT_TTL_MS = 10 * 60_000;
const CONSENT_TRIES = 5;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface Consent {
  client: OAuthClientInformationFull;
  params: AuthorizationParams;
  expires: number;
  /** Whether the one-time code was given: only then does the page show the corpora. */
  approved: boolean;
  tries: number;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  name: string;
  roots: string[];
  readOnly: boolean;
  expires: number;
}

const random = () => crypto.randomBytes(32).toString('base64url');
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title>` +
    '<style>body{font:16px system-ui;max-width:32em;margin:3em auto;padding:0 1em}input[type=text]{font:inherit;width:100%}label{display:block;margin:.4em 0}.error{color:#b00}</style>' +
    `</head><body><h1>${escape(title)}</h1>${body}</body></html>`
  );
}

/**
 * The authorization server's state and steps, as the SDK's router calls them (`OAuthServerProvider`),
 * and the consent page's. Consents, codes and spent codes live in memory: for minutes.
 */
class Grants implements OAuthServerProvider {
  private readonly consents = new Map<string, Consent>();
  private readonly codes = new Map<string, IssuedCode>();
  /** Codes exchanged already, by hash, with the grant they made: a code sent again revokes it. */
  private readonly spent = new Map<string, { roots: string[]; name: string; expires: number }>();

  constructor(private readonly o: OAuthOptions) {}

  readonly clientsStore = {
    getClient: (id: string) => oauthClient(id),
    registerClient: (client: OAuthClientInformationFull) => registerOAuthClient(client),
  };

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    // The SDK lets a loopback redirect differ in its port; a redirect here is the one registered, exactly.
    if (!client.redirect_uris.includes(params.redirectUri)) {
      res.status(400).json(new InvalidRequestError('Unregistered redirect_uri').toResponseObject());
      return;
    }
    this.sweep();
    const id = random();
    this.consents.set(id, { client, params, expires: now() + CONSENT_TTL_MS, approved: false, tries: 0 });
    res.type('html').send(this.codePage(id, client));
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return this.liveCode(client, code).challenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string): Promise<OAuthTokens> {
    const issued = this.liveCode(client, code);
    this.codes.delete(sha256(code));
    if (redirectUri !== issued.redirectUri) throw new InvalidGrantError('redirect_uri is not the one the code was issued for');
    this.spent.set(sha256(code), { roots: issued.roots, name: issued.name, expires: now() + CONSENT_TTL_MS });
    return this.issue(client.client_id, undefined, issued.name, issued.roots, issued.readOnly);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = await findGrant(refreshToken, client.client_id);
    if (!grant) throw new InvalidGrantError('the refresh token is not valid (revoked, used, or never issued)');
    // The grant's token revoked by its name (`token revoke NAME`) ends the grant too.
    if (!grant.roots.some((root) => readTokens(root).some((t) => t.sha256 === grant.token_sha256))) {
      await replaceGrant(grant, undefined);
      throw new InvalidGrantError('the grant was revoked');
    }
    await revokeToken(grant.roots, grant.name);
    return this.issue(client.client_id, grant, grant.name, grant.roots, grant.read_only);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    for (const c of this.o.corpora()) {
      const holder = tokenHolder(c.root, token);
      if (holder) return { token, clientId: holder.name, scopes: holder.read_only ? ['read'] : ['read', 'write'] };
    }
    throw new InvalidTokenError('the token is not known');
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const grant = (await findGrant(request.token, client.client_id, 'refresh')) ?? (await findGrant(request.token, client.client_id, 'token'));
    if (!grant) return; // RFC 7009: a token not known is answered as revoked
    await revokeToken(grant.roots, grant.name).catch(() => undefined);
    await replaceGrant(grant, undefined);
  }

  /** The consent page's form: first the one-time code, then the corpora, rights and name; then the redirect with a code. */
  async consent(form: Record<string, string | string[] | undefined>, res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    this.sweep();
    const id = String(form.consent ?? '');
    const consent = this.consents.get(id);
    if (!consent) {
      res.status(400).type('html').send(page('This request has ended', '<p>Start again from the application.</p>'));
      return;
    }
    if (form.step !== 'grant' || !consent.approved) return this.approve(id, consent, String(form.code ?? ''), res);
    const name = String(form.name ?? '').trim();
    const keys = ([] as string[]).concat(form.corpus ?? []);
    const chosen = this.o.corpora().filter((c) => keys.includes(c.key));
    if (!NAME.test(name) || !chosen.length) {
      res
        .status(400)
        .type('html')
        .send(
          this.grantPage(
            id,
            consent.client,
            !chosen.length ? 'Choose at least one corpus.' : 'A name is 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
          ),
        );
      return;
    }
    if (chosen.some((c) => readTokens(c.root).some((t) => t.name === name))) {
      res
        .status(400)
        .type('html')
        .send(this.grantPage(id, consent.client, `A token named ${name} opens one of these corpora already: choose another name.`));
      return;
    }
    this.consents.delete(id);
    const code = random();
    this.codes.set(sha256(code), {
      clientId: consent.client.client_id,
      redirectUri: consent.params.redirectUri,
      challenge: consent.params.codeChallenge,
      name,
      roots: chosen.map((c) => c.root),
      readOnly: form.read_only === '1',
      expires: now() + this.o.codeTtlMs,
    });
    const target = new URL(consent.params.redirectUri);
    target.searchParams.set('code', code);
    if (consent.params.state !== undefined) target.searchParams.set('state', consent.params.state);
    res.redirect(302, target.href);
  }

  /** The one-time code's step: the grant's page once it is right; a consent sent too many wrong codes ends. */
  private async approve(id: string, consent: Consent, code: string, res: Response): Promise<void> {
    if (await takeApproval(code)) {
      consent.approved = true;
      res.type('html').send(this.grantPage(id, consent.client));
      return;
    }
    if (++consent.tries >= CONSENT_TRIES) this.consents.delete(id);
    res
      .status(403)
      .type('html')
      .send(
        consent.tries >= CONSENT_TRIES
          ? page('Too many wrong codes', '<p>Start again from the application.</p>')
          : this.codePage(id, consent.client, 'That code is not valid (wrong, used, or expired).'),
      );
  }

  private sweep(): void {
    for (const [id, c] of this.consents) if (c.expires <= now()) this.consents.delete(id);
    for (const [id, c] of this.codes) if (c.expires <= now()) this.codes.delete(id);
    for (const [id, c] of this.spent) if (c.expires <= now()) this.spent.delete(id);
  }

  /** The live code `code` of `client`, or invalid_grant; a code sent again after its exchange revokes what it made. */
  private liveCode(client: OAuthClientInformationFull, code: string): IssuedCode {
    this.sweep();
    const issued = this.codes.get(sha256(code));
    if (issued && issued.clientId === client.client_id) return issued;
    const used = this.spent.get(sha256(code));
    if (used) {
      this.spent.delete(sha256(code));
      void revokeToken(used.roots, used.name).catch(() => undefined);
    }
    throw new InvalidGrantError('the authorization code is not valid (used, expired, or never issued)');
  }

  /** Make the grant's bearer token and a refresh token for it, and keep the grant (in place of `old`). */
  private async issue(clientId: string, old: Grant | undefined, name: string, roots: string[], readOnly: boolean): Promise<OAuthTokens> {
    let made: Awaited<ReturnType<typeof createToken>>;
    try {
      made = await createToken(roots, name, { readOnly });
    } catch (err) {
      throw new InvalidGrantError(err instanceof ZkError ? err.message : 'the grant could not be made');
    }
    const refresh = random();
    await replaceGrant(old, {
      client_id: clientId,
      refresh_sha256: sha256(refresh),
      token_sha256: sha256(made.token),
      name,
      roots: made.corpora,
      read_only: readOnly,
    });
    return { access_token: made.token, token_type: 'bearer', refresh_token: refresh, scope: readOnly ? 'read' : 'read write' };
  }

  private codePage(id: string, client: OAuthClientInformationFull, error = ''): string {
    return page(
      'Allow access to your memory?',
      `<p>${escape(client.client_name ?? 'An application')} asks to use your zk-memory.</p>` +
        `<p>On the host that runs the server, run <code>zk-memory token approve</code> and enter the code it prints.</p>${error ? `<p class="error">${escape(error)}</p>` : ''}` +
        `<form method="post" action="${escape(new URL('consent', this.o.issuer).pathname)}"><input type="hidden" name="consent" value="${escape(id)}">` +
        '<label>One-time code <input type="text" name="code" autocomplete="off" autofocus></label><button>Continue</button></form>',
    );
  }

  private grantPage(id: string, client: OAuthClientInformationFull, error = ''): string {
    return page(
      'Choose what to allow',
      `${error ? `<p class="error">${escape(error)}</p>` : ''}` +
        `<form method="post" action="${escape(new URL('consent', this.o.issuer).pathname)}"><input type="hidden" name="consent" value="${escape(id)}"><input type="hidden" name="step" value="grant">` +
        `<label>Name of the grant (the author of what it writes) <input type="text" name="name" value="${escape(suggestedName(client))}"></label><p>Corpora it may open:</p>` +
        this.o
          .corpora()
          .map((c) => `<label><input type="checkbox" name="corpus" value="${escape(c.key)}"> ${escape(c.label)}</label>`)
          .join('') +
        '<label><input type="checkbox" name="read_only" value="1"> read only</label><button>Allow</button></form>',
    );
  }
}

/** The app that answers the OAuth paths (the caller routes them to it). */
export function oauthApp(o: OAuthOptions): Express {
  const grants = new Grants(o);
  const app = express();
  app.disable('x-powered-by');
  // An error's stack is never shown to a client (express shows it outside production).
  app.set('env', 'production');
  // The consent page is never framed by another site (clickjacking).
  app.use((_req, res, next) => {
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    next();
  });
  app.use(
    mcpAuthRouter({
      provider: grants,
      issuerUrl: o.issuer,
      resourceServerUrl: new URL('mcp', o.issuer),
      scopesSupported: ['read', 'write'],
      resourceName: 'zk-memory',
    }),
  );
  // Every corpus at /mcp/NAME is a resource of the same server; the document says nothing of whether NAME is served.
  app.get('/.well-known/oauth-protected-resource/mcp/:name', (req, res) => {
    res.json({
      resource: new URL(`mcp/${encodeURIComponent(String(req.params.name))}`, o.issuer).href,
      authorization_servers: [o.issuer.href],
      scopes_supported: ['read', 'write'],
      resource_name: 'zk-memory',
    });
  });
  app.post('/consent', express.urlencoded({ extended: false, limit: '16kb' }), (req, res, next) => {
    grants.consent(req.body as Record<string, string | string[] | undefined>, res).catch(next);
  });
  // A failure of the server's own (its state file unreadable, say) is said in its log, and to the client only as such.
  app.use((err: unknown, _req: express.Request, res: Response, _next: express.NextFunction) => {
    o.log(`error: an OAuth request failed: ${err instanceof Error ? err.message : String(err)}\n`);
    if (!res.headersSent) res.status(500).json({ error: 'server_error', error_description: 'the server could not answer (its log says why)' });
  });
  return app;
}

/** A grant's name from the client's: letters, digits, ".", "_" and "-" only. */
function suggestedName(client: OAuthClientInformationFull): string {
  const name = (client.client_name ?? 'oauth-client')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return name || 'oauth-client';
}
