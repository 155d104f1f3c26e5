import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdFiles, zk, zkProcess } from './helpers/corpus.js';
import { git, preparedHosts, tree } from './helpers/git-hosts.js';

// A sync killed (SIGKILL) at any of its steps leaves a clone the next sync completes, with nothing
// lost and no half-finished merge left for a person (docs/hosts.md#when-a-sync-is-cut-short).

// A lock a killed sync held is taken over after 2 s instead of the default window.
const env = { ZK_MEMORY_LOCK_STALE: '2' };
const run = (clone: string, ...args: string[]) => zk(['--root', clone, ...args], { env });

const STEPS = ['after-commit', 'after-fetch', 'mid-merge', 'mid-resolve', 'before-merge-commit', 'before-push'];

// Each case runs several git processes and a killed sync: several seconds alone, far more beside a full suite.
describe('a sync killed half-way', { timeout: 180_000 }, () => {
  it.concurrent.each(STEPS)('at %s: the next sync finishes, nothing is lost', async (step) => {
    // b is behind a by a merge into a shared note and a note under a name b writes too: made once, copied for each step
    const {
      clones: [a, b],
    } = await preparedHosts('b behind a', 2, async ({ clones: [a, b] }) => {
      await run(a, 'write', 'judy', 'Judy', 'Judy paints.', '--date', '2026-12-01');
      await run(a, 'sync');
      await run(b, 'sync');
      await run(a, 'merge', 'judy', 'From a.', '--source', 'a');
      await run(a, 'write', 'plan', 'Plan A', 'a plan', '--date', '2026-12-02');
      await run(a, 'sync');
      await run(b, 'merge', 'judy', 'From b.', '--source', 'b');
      await run(b, 'write', 'plan', 'Plan B', 'b plan', '--date', '2026-12-02');
    });

    const killed = await zkProcess(['--root', b, 'sync'], { env: { ...env, ZK_MEMORY_FAULT: `sync-${step}` } });
    expect(killed.code, killed.stderr).toBe(-1);
    const next = await run(b, 'sync', '--json');
    expect(next.json, next.stdout).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(b, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(await git(b, 'status', '--porcelain')).toBe('');
    expect((await run(a, 'sync', '--json')).json).toMatchObject({ ok: true });
    expect(tree(a)).toEqual(tree(b));
    expect(mdFiles(a)).toEqual(['20261201-judy.md', '20261202-plan-2.md', '20261202-plan.md']);
    const judy = fs.readFileSync(path.join(a, '20261201-judy.md'), 'utf8');
    for (const f of ['From a.', 'From b.']) expect(judy.split(f).length, f).toBe(2);
    const plans = ['20261202-plan.md', '20261202-plan-2.md'].map((n) => fs.readFileSync(path.join(a, n), 'utf8'));
    expect(plans.filter((t) => t.includes('a plan'))).toHaveLength(1);
    expect(plans.filter((t) => t.includes('b plan'))).toHaveLength(1);
    expect((await run(a, 'tend', 'check')).code).toBe(0);
  });
});
