import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, mdFiles, tempDir, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { git, gitHosts, tree } from './helpers/git-hosts.js';
import { judyOnBoth, run, sync, syncAll } from './helpers/sync-steps.js';

// `zk-memory sync` when it cannot simply merge (docs/hosts.md): a true conflict, an unreachable
// remote, a push race, a hostile file name, a folder that is no work tree, and a resident server
// on the receiving host. The merge rules on real git merges are in test/sync.test.ts.

describe('sync', () => {
  it('a hand edit both hosts made to the same text stops the sync (exit 1), names the file, pushes nothing; finished by hand, the next sync goes on', async () => {
    const {
      remote,
      clones: [a, b],
    } = await judyOnBoth();
    const [note] = mdFiles(a);
    for (const [c, what] of [
      [a, 'mountains'],
      [b, 'the sea'],
    ]) {
      const f = path.join(c, note);
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('lake sunrises', what));
    }
    expect((await sync(a)).code).toBe(0);
    const remoteHead = await git(remote, 'rev-parse', 'main');
    const stopped = await sync(b);
    expect(stopped.code).toBe(1);
    expect(stopped.json).toMatchObject({ ok: false, error: { code: 'merge_conflict', files: [note] } });
    expect(stopped.json.error.message).toContain('git add');
    expect(await git(remote, 'rev-parse', 'main')).toBe(remoteHead);
    // running again before it is finished says the same
    expect((await sync(b)).json).toMatchObject({ ok: false, error: { code: 'merge_conflict' } });
    const f = path.join(b, note);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/<<<<<<< ours\n.*\n=======\n.*\n>>>>>>> theirs\n/, 'Judy paints mountains and the sea.\n'));
    await git(b, 'add', note);
    const finished = await sync(b);
    expect(finished.json).toMatchObject({ ok: true, recovered: 'committed', outgoing: { pushed: true } });
    await sync(a);
    expect(fs.readFileSync(path.join(a, note), 'utf8')).toContain('mountains and the sea');
  });

  it('a remote that cannot be reached is exit 4 with nothing lost; the next sync catches up', async () => {
    const {
      remote,
      clones: [a, b],
    } = await gitHosts(2);
    fs.renameSync(remote, `${remote}.away`);
    await run(a, 'write', 'offline', 'Written offline', 'While the remote was away.');
    const r = await zkProcess(['--root', a, 'sync', '--json']);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'remote_unreachable' } });
    expect(await git(a, 'status', '--porcelain')).toBe('');
    const text = await zkProcess(['--root', a, 'sync']);
    expect(text.code).toBe(4);
    expect(text.stderr.split('\n')).toHaveLength(1);
    fs.renameSync(`${remote}.away`, remote);
    expect((await sync(a)).json).toMatchObject({ ok: true, outgoing: { pushed: true } });
    expect((await sync(b)).json).toMatchObject({ ok: true, incoming: { added: [expect.stringMatching(/-offline\.md$/)] } });
  });

  it('a push that loses a race fetches, merges and pushes again', async () => {
    const {
      clones: [a, b, c],
    } = await gitHosts(3);
    await run(a, 'write', 'from-a', 'From A', 'a');
    await run(c, 'write', 'from-c', 'From C', 'c');
    await run(c, 'sync');
    // Just before a's first push, c pushes another note: a's push is refused, and a tries again.
    const hook = path.join(a, '.git/hooks/pre-push');
    const zkBin = path.resolve('bin/zk-memory.js');
    const again = `node '${zkBin}' --root '${c}'`;
    const raced = path.join(a, '.git', 'raced');
    fs.writeFileSync(
      hook,
      `#!/bin/sh\n[ -e '${raced}' ] && exit 0\ntouch '${raced}'\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX\n${again} write from-c2 'From C2' c2 >/dev/null && ${again} sync >/dev/null\n`,
      { mode: 0o755 },
    );
    const r = await sync(a);
    expect(r.json, r.stdout).toMatchObject({ ok: true, outgoing: { pushed: true } });
    expect(fs.existsSync(raced)).toBe(true);
    expect(r.json.attempts).toBe(2);
    // the remote holds all three: a host that only fetches gets them in one sync
    expect((await sync(b)).json).toMatchObject({ ok: true });
    expect(mdFiles(b).map((n) => n.slice(9))).toEqual(['from-a.md', 'from-c.md', 'from-c2.md']);
  });

  it('a note whose name is a shell command, merged on two hosts, merges as a note and runs nothing', async () => {
    const {
      clones: [a, b],
    } = await gitHosts(2);
    const name = '20261202-x $(touch pwned) `touch pwned2`.md';
    const note = (body: string) => `---\nuuid: 7a0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a\ntitle: X\ndate: 2026-12-02\n---\n\n# X\n\n${body}\n`;
    fs.writeFileSync(path.join(a, name), note('x'));
    await syncAll([a, b]);
    await run(a, 'merge', name, 'From a.');
    await run(b, 'merge', name, 'From b.');
    await syncAll([a, b]);
    expect(tree(a)).toEqual(tree(b));
    const text = fs.readFileSync(path.join(b, name), 'utf8');
    expect([text.includes('From a.'), text.includes('From b.')]).toEqual([true, true]);
    for (const c of [a, b]) expect(fs.readdirSync(c).filter((n) => n.startsWith('pwned'))).toEqual([]);
  });

  it('init in a git work tree installs the merge rules; sync outside one is refused in one line', async () => {
    const {
      clones: [, b],
    } = await gitHosts(2);
    expect(fs.readFileSync(path.join(b, '.gitattributes'), 'utf8')).toContain('/*.md merge=zk-memory');
    // a clone's config is its own: sync installs the driver where init did not run
    await expect(git(b, 'config', '--get', 'merge.zk-memory.driver')).rejects.toThrow();
    await sync(b);
    expect(await git(b, 'config', '--get', 'merge.zk-memory.driver')).toMatch(/zk-memory\.js' merge-driver %O %A %B$/);
    expect(await git(b, 'config', '--get', 'merge.zk-memory-trace.driver')).toMatch(/zk-memory\.js' merge-driver --trace %O %A %B$/);
    const plain = fs.mkdtempSync(path.join(path.dirname(b), 'plain-'));
    await zk(['init', plain]);
    const r = await zk(['--root', plain, 'sync']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: sync needs the corpus in a git work tree/);
  });

  it("after a sync the receiving host's resident server finds the notes that came in, and links into them resolve", async () => {
    const {
      clones: [a, b],
    } = await gitHosts(2);
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    const env = { ZK_MEMORY_SERVER: 'on', XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts' };
    const server = execa('node', [BIN, 'serve', '--root', b], { env: { ...process.env, ...env }, reject: false });
    try {
      await until('the server answers', async () => (await zk(['serve', '--status', '--json', '--root', b], { env })).json?.running === true, 30_000);
      // the server has an index open before anything comes in
      expect((await zkProcess(['--root', b, '--json', 'search', 'kayak'], { env })).json).toMatchObject({ server: true, hits: [] });
      await run(a, 'write', 'kayak', 'The kayak trip', 'Paddled the fjord in a red kayak.');
      await run(a, 'write', 'trips', 'Trips', 'The best one: [[kayak]].');
      await sync(a);
      expect((await sync(b)).json).toMatchObject({ ok: true, incoming: { commits: 1 } });
      const found = await zkProcess(['--root', b, '--json', 'search', 'kayak fjord'], { env });
      expect(found.json).toMatchObject({ ok: true, server: true, hits: [{ title: 'The kayak trip' }] });
      const read = await zkProcess(['--root', b, '--json', 'read', 'trips'], { env });
      expect(read.json).toMatchObject({ ok: true, server: true, links: [{ path: expect.stringMatching(/-kayak\.md$/) }] });
    } finally {
      await zk(['serve', '--stop', '--root', b], { env });
      server.kill('SIGKILL');
      await server;
    }
  });
});
