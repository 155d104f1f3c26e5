import crypto from 'node:crypto';

// Who may look (docs/viewer.md#access): `zk-memory view` asks the server for a launch token, good
// once and for a few minutes, which the browser trades for a session cookie (HttpOnly,
// SameSite=Strict). Every request then needs that cookie. Both live in the server's memory only:
// a restarted server asks for a new `view`.

/** How long a launch link works. */
const LAUNCH_MS = 5 * 60_000;
export const COOKIE = 'zkview';

const token = () => crypto.randomBytes(32).toString('base64url');

export class ViewerAccess {
  private readonly launches = new Map<string, number>();
  private readonly sessions = new Set<string>();

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
    const session = token();
    this.sessions.add(session);
    return session;
  }

  /** Whether a request's Cookie header holds a session of this server. */
  admits(cookieHeader: string | undefined): boolean {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, value] = part.trim().split('=', 2);
      if (name === COOKIE && value && this.sessions.has(value)) return true;
    }
    return false;
  }

  /** The header that sets a session cookie: script cannot read it, no other site's page sends it. */
  static cookie(session: string): string {
    return `${COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}
