import crypto from 'node:crypto';

// Who may look (docs/viewer.md#access): `zk-memory view` asks the server for a launch token, good
// once and for a few minutes, which the browser trades for a session cookie (HttpOnly,
// SameSite=Strict). Every request then needs that cookie. Both live in the server's memory only:
// a restarted server asks for a new `view`.
//
// A browser sends a cookie of 127.0.0.1 to every port of it, so each viewer names its cookie by
// its port and corpus (two viewers never overwrite each other's session) and signs the session
// with a key made when it starts: a session is accepted only by the viewer that made it, on its
// port, for its corpus, until it stops.

/** How long a launch link works. */
const LAUNCH_MS = 5 * 60_000;

const token = () => crypto.randomBytes(32).toString('base64url');

export class ViewerAccess {
  private readonly launches = new Map<string, number>();
  /** Made at each start, never written or sent: what a session is signed with. */
  private readonly key = crypto.randomBytes(32);
  /** This viewer's cookie: `zkview-PORT-CORPUS` (the corpus as a digest of its folder). */
  readonly cookieName: string;

  constructor(
    private readonly port: number,
    private readonly corpus: string,
  ) {
    this.cookieName = `zkview-${port}-${crypto.createHash('sha256').update(corpus).digest('hex').slice(0, 12)}`;
  }

  /** A new one-time launch token. */
  launch(): string {
    const t = token();
    this.launches.set(t, performance.now() + LAUNCH_MS);
    return t;
  }

  /** Trade a launch token for a session (once); undefined when it is unknown, used or expired. */
  open(launch: string): string | undefined {
    const until = this.launches.get(launch);
    this.launches.delete(launch);
    for (const [t, u] of this.launches) if (u < performance.now()) this.launches.delete(t);
    if (until === undefined || until < performance.now()) return undefined;
    const id = token();
    return `${id}.${this.sign(id)}`;
  }

  /** Whether a request's Cookie header holds a session of this viewer: its cookie, signed by it for its port and corpus. */
  admits(cookieHeader: string | undefined): boolean {
    for (const part of (cookieHeader ?? '').split(';')) {
      const at = part.indexOf('=');
      if (at < 0 || part.slice(0, at).trim() !== this.cookieName) continue;
      const [id, mac, ...rest] = part
        .slice(at + 1)
        .trim()
        .split('.');
      if (!id || !mac || rest.length) continue;
      const want = Buffer.from(this.sign(id));
      const got = Buffer.from(mac);
      if (got.length === want.length && crypto.timingSafeEqual(got, want)) return true;
    }
    return false;
  }

  /** The header that sets a session cookie: script cannot read it, no other site's page sends it. */
  cookie(session: string): string {
    return `${this.cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }

  private sign(id: string): string {
    return crypto.createHmac('sha256', this.key).update(`${this.port}\0${this.corpus}\0${id}`).digest('base64url');
  }
}
