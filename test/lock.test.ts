import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readLockHolder, withCorpusLock } from '../src/corpus/lock/lock.js';
import { REPO, tempCorpus, zk } from './helpers/corpus.js';

const LOCKER = path.join(REPO, 'test', 'workers', 'locker.mjs');
async function noteWithText(root: string): Promise<string> {
  const w = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Start.']);
  expect(w.code).toBe(0);
  return path.join(root, w.json.note.path);
}

describe('the corpus lock', () => {
  it('records who holds it inside the lock folder, and removes the folder on release', async () => {
    const root = tempCorpus();
    const seen = await withCorpusLock(root, () => readLockHolder(root));
    expect(seen?.pid).toBe(process.pid);
    expect(seen?.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(fs.existsSync(path.join(root, '.zk', 'lock'))).toBe(false);
  });

  it('a lock whose record is dated an hour ahead (clock skew) and never changes is taken over by racing waiters', async () => {
    const root = tempCorpus();
    const file = await noteWithText(root);
    const lock = path.join(root, '.zk', 'lock');
    fs.mkdirSync(lock);
    const future = new Date(Date.now() + 3600_000).toISOString();
    fs.writeFileSync(path.join(lock, 'holder'), JSON.stringify({ token: 'dead-holder', host: 'fast-clock', pid: 1, since: future, beat: 7, time: future }));
    const env = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '30' };
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => zk(['--root', root, 'merge', 'judy', `after skew ${i}`], { env })));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const text = fs.readFileSync(file, 'utf8');
    for (let i = 0; i < 6; i++) expect(text.split(`after skew ${i}\n`)).toHaveLength(2);
    expect(fs.readdirSync(path.join(root, '.zk')).filter((n) => n.startsWith('lock'))).toEqual([]);
  });

  it('a plain file at .zk/lock is named in the busy message and taken over once it stays unchanged', async () => {
    const root = tempCorpus();
    const file = await noteWithText(root);
    fs.writeFileSync(path.join(root, '.zk', 'lock'), 'junk');
    const busy = await zk(['--root', root, 'merge', 'judy', 'blocked'], { env: { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '30' } });
    expect(busy.code).toBe(4);
    expect(busy.stderr.trim()).toBe('error: corpus busy: lock held by a plain file at .zk/lock (not a lock folder); gave up after 1 s');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('blocked');
    const taken = await zk(['--root', root, 'merge', 'judy', 'recovered'], { env: { ZK_MEMORY_LOCK_STALE: '2' } });
    expect(taken.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('recovered');
  });

  it('a lock folder with an unreadable record is reported and taken over once it stays unchanged', async () => {
    const root = tempCorpus();
    const file = await noteWithText(root);
    fs.mkdirSync(path.join(root, '.zk', 'lock'));
    fs.writeFileSync(path.join(root, '.zk', 'lock', 'holder'), 'garbage');
    const busy = await zk(['--root', root, 'merge', 'judy', 'blocked'], { env: { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '30' } });
    expect(busy.stderr.trim()).toBe('error: corpus busy: lock held by a lock folder with an unreadable holder record; gave up after 1 s');
    expect((await zk(['--root', root, 'merge', 'judy', 'recovered'], { env: { ZK_MEMORY_LOCK_STALE: '2' } })).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('recovered');
  });

  it('a live holder that keeps the lock past the stale window is never taken over: no update is lost', async () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, 'counter'), '0');
    // Holds of up to 3 s against a 2 s stale window: only the heartbeat keeps them.
    const env = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '120' };
    const procs = [
      execa('node', [LOCKER, root, 'count', '3', '3000'], { env }),
      ...Array.from({ length: 3 }, () => execa('node', [LOCKER, root, 'count', '25', '20'], { env })),
    ];
    await Promise.all(procs);
    expect(fs.readFileSync(path.join(root, 'counter'), 'utf8')).toBe(String(3 + 3 * 25));
  }, 120_000);

  it('a holder past its maximum hold stops keeping the lock fresh, so it is taken over and its late write refused', async () => {
    const root = tempCorpus();
    const file = await noteWithText(root);
    fs.writeFileSync(path.join(root, 'counter'), '0');
    const env = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_MAX_HOLD: '1', ZK_MEMORY_LOCK_TIMEOUT: '30' };
    const holder = execa('node', [LOCKER, root, 'count', '1', '8000'], { env, reject: false });
    // The merge must start after the holder has the lock, however slow the machine is to start it.
    await new Promise<void>((resolve) => holder.stdout!.on('data', (c) => String(c).includes('locked') && resolve()));
    const merged = await zk(['--root', root, 'merge', 'judy', 'taken over'], { env });
    expect(merged.code).toBe(0);
    const h = await holder;
    expect(h.exitCode).not.toBe(0);
    expect(h.stderr).toContain('its lock was taken over; nothing was written');
    expect(fs.readFileSync(path.join(root, 'counter'), 'utf8')).toBe('0');
    expect(fs.readFileSync(file, 'utf8')).toContain('taken over');
  }, 60_000);

  it('a holder stuck past the stale window loses its lock and writes nothing; the others go on', async () => {
    const root = tempCorpus();
    const file = await noteWithText(root);
    const env = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '30' };
    const stuck = execa('node', [LOCKER, root, 'stall', '6000'], { env });
    await new Promise<void>((resolve) => stuck.stdout!.on('data', (c) => String(c).includes('locked') && resolve()));
    const merged = await zk(['--root', root, 'merge', 'judy', 'while stuck'], { env });
    expect(merged.code).toBe(0);
    const out = (await stuck).stdout;
    expect(out).toMatch(/^locked\nrefused: busy: corpus busy: /);
    expect(fs.existsSync(path.join(root, 'stalled'))).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toContain('while stuck');
  }, 60_000);
});
