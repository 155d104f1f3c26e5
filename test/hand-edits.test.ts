import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempCorpus } from './helpers/corpus.js';

// A program that ignores the corpus lock (an editor, a script, `echo >>`) appends to a note while
// the tool rewrites that note again and again: every line it wrote must be in the note afterwards,
// once (docs/concurrency.md, "Rewrites in place").

const WORKERS = path.join(import.meta.dirname, 'workers');
const DURATION_MS = 2_000;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function note(root: string, name: string, id: number, body = ''): string {
  const title = name.slice(9, -3);
  const file = path.join(root, name);
  fs.writeFileSync(file, `---\nuuid: ${uuid(id)}\ntitle: ${title}\n---\n\n# ${title}\n\n${body}`);
  return file;
}

/** Each rewriting operation, with a corpus where every hand-written line gives it work. */
const scenarios: Record<string, (root: string) => { hub: string; suffix: string }> = {
  // Each line adds a plain link for robustify to anchor.
  robustify: (root) => {
    note(root, '20260101-target.md', 1);
    return { hub: note(root, '20260101-hub.md', 2), suffix: '[t](20260101-target.md)' };
  },
  // Each line adds a link to where its note no longer is, for repair to point at where it is.
  repair: (root) => {
    note(root, '20260102-moved.md', 1);
    return { hub: note(root, '20260101-hub.md', 2), suffix: `[m](20260101-moved.md) <!-- uuid: ${uuid(1)} -->` };
  },
  // Each round supersedes another note by the hub, rewriting the hub's `supersedes`.
  supersede: (root) => {
    for (let i = 0; i < 400; i++) note(root, `20260101-old${i}.md`, 100 + i);
    return { hub: note(root, '20260101-hub.md', 2), suffix: 'a plain line' };
  },
  // Each round the gardener extends the hub's Related section with a new note on its subject.
  related: (root) => ({ hub: note(root, '20260101-hub.md', 2, 'Sourdough starter rye flour loaves.\n'), suffix: 'more sourdough' }),
};

async function race(mode: string, intervalMs: number): Promise<void> {
  const root = tempCorpus();
  const { hub, suffix } = scenarios[mode](root);
  const stop = path.join(root, '.zk', 'stop');
  const tool = execa('node', [path.join(WORKERS, 'rewrite-loop.mjs'), root, mode, stop], { env: { ZK_MEMORY_LOCK_TIMEOUT: '60' } });
  await new Promise((resolve) => tool.stdout!.once('data', resolve));
  // The hand writes until the tool has rewritten the note three times, however slow the machine.
  const hand = await execa('node', [path.join(WORKERS, 'hand-appender.mjs'), hub, String(intervalMs), String(DURATION_MS), 'hand', suffix, `${stop}.three`]);
  fs.writeFileSync(stop, '');
  const written = Number(hand.stdout);
  const rewrites = Number((await tool).stdout.split('\n')[1]);
  const lines = fs.readFileSync(hub, 'utf8').split('\n');
  // The rewrites really overlapped the hand's writing.
  expect(rewrites).toBeGreaterThanOrEqual(3);
  expect(written).toBeGreaterThan(50);
  const missing: number[] = [];
  for (let i = 0; i < written; i++) {
    const mine = lines.filter((l) => l.startsWith(`hand-${i} ${suffix.slice(0, 3)}`));
    if (mine.length !== 1) missing.push(i);
  }
  expect(missing, `${missing.length} of ${written} lines lost or doubled over ${rewrites} rewrites`).toEqual([]);
  expect(lines.filter((l) => l.startsWith('hand-'))).toHaveLength(written);
}

describe('a rewrite keeps what a program that ignores the lock appended meanwhile', () => {
  for (const mode of Object.keys(scenarios)) {
    for (const interval of [2, 20]) {
      it(`${mode}, a line every ${interval} ms`, () => race(mode, interval), 120_000);
    }
  }
});

describe('a rewrite whose old file is changed in place after the check', () => {
  it('puts the changed text back and plans again from it, so the edit made in place is kept', async () => {
    const { rewriteNoteLocked } = await import('../src/corpus/ops/rewrite.js');
    const root = tempCorpus();
    const file = note(root, '20260101-hub.md', 2, 'draft one\n');
    // An editor that opened the note earlier and saves into that same file.
    const editor = fs.openSync(file, 'r+');
    const inode = fs.fstatSync(editor).ino;
    let saved = false;
    const save = () => {
      if (fs.statSync(file).ino === inode) return void setImmediate(save);
      fs.writeSync(editor, Buffer.from('draft TWO\n'), 0, 10, fs.fstatSync(editor).size - 10);
      saved = true;
    };
    setImmediate(save);
    try {
      const change = await rewriteNoteLocked(root, '20260101-hub.md', (n) => (n.raw.includes('tool was here') ? undefined : `${n.raw}tool was here\n`));
      expect(saved).toBe(true);
      expect(change?.before).toContain('draft TWO');
      expect(fs.readFileSync(file, 'utf8')).toMatch(/draft TWO\ntool was here\n$/);
    } finally {
      fs.closeSync(editor);
    }
  });
});
