// Two hosts on one network share, on one machine: an sshd of our own on 127.0.0.1 serves a folder,
// and two independent sshfs mounts of it with sshfs's default caching (attributes and directory
// listings cached for 20 s, as NFS and SMB clients cache too) stand for host A and host B.
// Needs root, openssh-server, sshfs and /dev/fuse; `nasUnavailable()` says why not, if not.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from './wait.js';

const SSHD = '/usr/sbin/sshd';

function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Why a NAS cannot be set up here, or undefined when it can be tried. */
export function nasUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root';
  if (!fs.existsSync(SSHD)) return 'openssh-server is not installed';
  for (const cmd of ['sshfs', 'ssh-keygen', 'fusermount3']) if (!onPath(cmd)) return `${cmd} is not installed`;
  if (!fs.existsSync('/dev/fuse')) return 'no /dev/fuse';
  return undefined;
}

export interface NasHost {
  name: string;
  /** The mount point: the corpus root as this host sees it. */
  mount: string;
  /** Environment for this host's processes: its own cache folder (a host's local disk). */
  env: Record<string, string>;
}

export interface Nas {
  /** The served folder itself, as the file server sees it (no client cache in between). */
  server: string;
  a: NasHost;
  b: NasHost;
  /** Unmount both hosts, stop sshd and remove every file made. Safe to call twice. */
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function isMounted(dir: string): boolean {
  const mounts = fs.readFileSync('/proc/mounts', 'utf8');
  return mounts.split('\n').some((l) => l.split(' ')[1] === dir);
}

function exited(child: ChildProcess, log: string[]): () => string | undefined {
  return () =>
    child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode}): ${log.join('').trim().slice(-500)}` : undefined;
}

/**
 * Start sshd on a free port of 127.0.0.1 with a throwaway host key and client key, and mount its
 * folder twice with sshfs (default caching). Everything lives in one temp folder; `stop()` (also
 * run at process exit) unmounts, kills and removes it. Throws, having cleaned up, if any step fails.
 */
export async function startNas(): Promise<Nas> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zk-nas-')));
  const children: ChildProcess[] = [];
  const mounts: string[] = [];
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const m of mounts) {
      if (!isMounted(m)) continue;
      if (spawnSync('fusermount3', ['-u', m], { stdio: 'ignore' }).status !== 0) {
        spawnSync('umount', ['-l', m], { stdio: 'ignore' });
      }
    }
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    // Never remove through a mount that is still there: that would delete the served files twice over.
    if (mounts.every((m) => !isMounted(m))) fs.rmSync(tmp, { recursive: true, force: true });
    process.off('exit', stop);
  };
  process.on('exit', stop);
  try {
    const server = path.join(tmp, 'server');
    fs.mkdirSync(server);
    const hostKey = path.join(tmp, 'host_key');
    const clientKey = path.join(tmp, 'client_key');
    for (const key of [hostKey, clientKey]) {
      const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'zk-nas-test', '-f', key], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
    }
    const authorized = path.join(tmp, 'authorized_keys');
    fs.copyFileSync(`${clientKey}.pub`, authorized);
    fs.chmodSync(authorized, 0o600);
    fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // sshd's privilege separation folder
    const port = await freePort();
    const config = path.join(tmp, 'sshd_config');
    fs.writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${authorized}`,
        `PidFile ${path.join(tmp, 'sshd.pid')}`,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'StrictModes no',
        'UsePAM no',
        'Subsystem sftp internal-sftp',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    const sshdLog: string[] = [];
    const sshd = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(sshd);
    sshd.stderr!.on('data', (d) => sshdLog.push(String(d)));
    await until('sshd', () => canConnect(port), 10_000, exited(sshd, sshdLog));

    const mount = async (name: string): Promise<NasHost> => {
      const dir = path.join(tmp, `host-${name}`);
      const cache = path.join(tmp, `cache-${name}`);
      fs.mkdirSync(dir);
      fs.mkdirSync(cache);
      mounts.push(dir);
      const log: string[] = [];
      const opts = [
        `port=${port}`,
        `IdentityFile=${clientKey}`,
        'StrictHostKeyChecking=no',
        'UserKnownHostsFile=/dev/null',
        'BatchMode=yes',
        'LogLevel=ERROR',
      ].join(',');
      // -f: stay in the foreground, so the process is ours to stop.
      const sshfs = spawn('sshfs', ['-f', '-o', opts, `root@127.0.0.1:${server}`, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(sshfs);
      sshfs.stderr!.on('data', (d) => log.push(String(d)));
      await until(`sshfs mount of host ${name}`, () => isMounted(dir), 15_000, exited(sshfs, log));
      return { name, mount: dir, env: { XDG_CACHE_HOME: cache, ZK_MEMORY_INDEX_DIR: '', ZK_MEMORY_SOURCE: `host-${name}` } };
    };
    const a = await mount('a');
    const b = await mount('b');
    return { server, a, b, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
