import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';

/** The socket a server holds, known by its inode so that it never removes another server's. */
export interface SocketClaim {
  stillOurs(): boolean;
}

/** The file beside a socket that names the server's pid, for `serve --stop` when it no longer answers. */
export function pidFile(sock: string): string {
  return `${sock}.pid`;
}

function inode(file: string): bigint | undefined {
  try {
    const st = fs.lstatSync(file, { bigint: true });
    return st.isSocket() ? st.ino : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a server answers on `sock` (it accepts a connection). */
export function answers(sock: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(sock);
    const end = (ok: boolean) => {
      clearTimeout(timer);
      c.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => end(true), timeoutMs); // accepted but slow: someone holds it
    c.once('connect', () => end(true));
    c.once('error', () => end(false));
  });
}

/**
 * Listen on `sock` unless a live server does. The server listens on a name of its own first and
 * then links the socket to `sock`, which fails when the name is taken: of two servers starting at
 * once, one gets the name and the other sees it answer. A socket nobody answers on any more (its
 * server was killed) is removed, by inode, so a live server's socket made meanwhile stays.
 */
export async function claimSocket(server: net.Server, sock: string): Promise<SocketClaim | undefined> {
  const own = `${sock}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(own, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    fs.chmodSync(own, 0o600);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        fs.linkSync(own, sock);
        const ino = inode(sock);
        return { stillOurs: () => ino !== undefined && inode(sock) === ino };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const stale = inode(sock);
      if (stale === undefined) {
        // not a socket: something planted there, which is not ours to remove
        if (fs.existsSync(sock) || isSymlink(sock)) throw new Error(`${sock} is not a socket`);
        continue;
      }
      if (await answers(sock)) return undefined;
      if (inode(sock) === stale) fs.rmSync(sock, { force: true });
    }
    return undefined;
  } finally {
    fs.rmSync(own, { force: true });
  }
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Remove the socket and its pid file, when they are still this server's. */
export function releaseSocket(sock: string, claim: SocketClaim | undefined): void {
  if (!claim?.stillOurs()) return;
  fs.rmSync(sock, { force: true });
  fs.rmSync(pidFile(sock), { force: true });
}
