import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, zkProcess, type RunResult } from './helpers/corpus.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('in-place rewrites are compare-and-swap', () => {
  it('tend robustify on a hub of 6,000 links keeps every merge that exited 0 during it', async () => {
    const root = tempCorpus();
    try {
      for (let i = 0; i < 50; i++) {
        fs.writeFileSync(
          path.join(root, `20260101-n${i}.md`),
          `---\nuuid: 00000000-0000-4000-8000-${String(i).padStart(12, '0')}\ntitle: N${i}\n---\n\n# N${i}\n`,
        );
      }
      const links = Array.from({ length: 6_000 }, (_, i) => `- [n${i % 50}](20260101-n${i % 50}.md)`).join('\n');
      const hub = path.join(root, '20260101-hub.md');
      fs.writeFileSync(hub, `---\nuuid: 11111111-0000-4000-8000-000000000000\ntitle: Hub\n---\n\n# Hub\n\n${links}\n`);
      // Separate processes, as a user's shell and an agent would be. The rewrite stops between its
      // plan and its swap (a test seam) while merges land, so they certainly overlap it.
      const paused = path.join(root, '.zk', 'paused');
      const tend = zkProcess(['--root', root, '--json', 'tend', 'robustify', '--write'], { env: { ZK_MEMORY_FAULT: 'rewrite-pause' } });
      while (!fs.existsSync(paused)) await sleep(20);
      const merges: Promise<RunResult>[] = [];
      for (let i = 0; i < 12; i++) {
        merges.push(zkProcess(['--root', root, 'merge', 'hub', `MERGE-TAG-${i}`], { env: { ZK_MEMORY_LOCK_TIMEOUT: '120' } }));
        await sleep(50);
      }
      await Promise.all(merges);
      fs.rmSync(paused);
      const done = await Promise.all(merges);
      const t = await tend;
      const text = fs.readFileSync(hub, 'utf8');
      const acknowledged = done.map((r, i) => (r.code === 0 ? i : -1)).filter((i) => i >= 0);
      const kept = acknowledged.filter((i) => text.includes(`MERGE-TAG-${i}\n`));
      expect(acknowledged).toHaveLength(12);
      expect(kept).toEqual(acknowledged);
      expect(t.code, t.stderr).toBe(0);
      expect(text.match(/<!-- uuid: /g)).toHaveLength(6_000);
      // The merges really overlapped the rewrite: what landed while it was planned was carried into it.
      const trace = fs
        .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const carried = trace.filter((e) => e.event === 'carried' && e.path === '20260101-hub.md');
      expect(carried.length, 'no merge landed while the rewrite was planned').toBeGreaterThan(0);
      expect(carried.every((e) => e.bytes > 0)).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
