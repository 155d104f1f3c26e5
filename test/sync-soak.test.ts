import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdFiles, tempDir, zk } from './helpers/corpus.js';
import { gitHosts, tree } from './helpers/git-hosts.js';

// The soak of docs/hosts.md: three clones of one remote; for a number of rounds each does random
// writes, merges into shared notes, supersedes, archives and ingest accepts, then the clones sync in
// random order. At the end every clone has the same tree, every acknowledged note and fragment is
// there exactly once, no file holds a conflict marker, no sync stopped, and `tend check` finds
// only what the merge rules design (forks, one undated slug on several days).
//
// What it catches is an interleaving the rule-by-rule tests of sync.test.ts do not write out: a
// merge of merges, a supersede or archive meeting a fragment from another host, a clash of names
// renamed and then merged into. With the default seed, 6 rounds acknowledge over 18 writes and
// merges, rename a clash and archive notes (the last checks below fail on a run that made none of
// the designed cases); each round costs about 3 s of CPU, most of it git and the merge driver, so
// the suite runs a short soak. ZK_SOAK_ROUNDS and ZK_SOAK_SEED run a longer or another one (a seed
// other than the default may make no clash in 6 rounds: give it more).

const ROUNDS = Number(process.env.ZK_SOAK_ROUNDS ?? 6);

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function documents(): string {
  const dir = tempDir('zk-soak-docs-');
  const sections = Array.from({ length: 60 }, (_, i) => `## Section ${i}\n\nThe handbook says thing number ${i} about releases.\n`);
  fs.writeFileSync(path.join(dir, 'handbook.md'), `# Handbook\n\n${sections.join('\n')}`);
  return dir;
}

/** Every `.md` text of a clone, live and archived. */
function allNotes(clone: string): string[] {
  const archive = path.join(clone, '.archive');
  const archived = fs.existsSync(archive) ? fs.readdirSync(archive).map((n) => path.join(archive, n)) : [];
  return [...mdFiles(clone).map((n) => path.join(clone, n)), ...archived].map((f) => fs.readFileSync(f, 'utf8'));
}

describe(`three hosts syncing through one remote for ${ROUNDS} rounds`, () => {
  it('converge with nothing lost, nothing doubled, no conflict and only the designed findings', async () => {
    const seed = Number(process.env.ZK_SOAK_SEED ?? 1);
    const rnd = random(seed);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const { clones } = await gitHosts(3);
    const docs = documents();
    const run = (clone: string, ...args: string[]) => zk(['--root', clone, ...args], { env: { ZK_MEMORY_SOURCE: path.basename(clone) } });
    const acknowledged: string[] = [];
    const syncs: { clone: string; code: number; out: string }[] = [];

    // Notes every host merges into, known everywhere before the rounds start.
    for (let i = 0; i < 4; i++) expect((await run(clones[0], 'write', `shared-${i}`, `Shared ${i}`, `shared body ${i}`, '--date', '2026-12-01')).code).toBe(0);
    for (const c of clones) expect((await run(c, 'sync')).code).toBe(0);
    for (const c of clones) expect((await run(c, 'ingest', 'start', '--from', docs, '--name', 'handbook')).code).toBe(0);

    for (let round = 0; round < ROUNDS; round++) {
      for (const [h, clone] of clones.entries()) {
        const tag = `r${round}h${h}`;
        const ops = 1 + Math.floor(rnd() * 3);
        for (let k = 0; k < ops; k++) {
          const op = rnd();
          const marker = `${tag}k${k}`;
          let r;
          if (op < 0.3) {
            // a shared slug now and then, on one day, to make two hosts write one name
            const slug = rnd() < 0.4 ? `topic-${round}` : `note-${marker}`;
            r = await run(clone, 'write', slug, `Note ${marker}`, `body ${marker}`, '--date', '2026-12-02');
          } else if (op < 0.65) {
            r = await run(clone, 'merge', `shared-${Math.floor(rnd() * 4)}`, `fragment ${marker}`);
          } else if (op < 0.75) {
            const target = pick(mdFiles(clone).filter((n) => n.includes('note-') || n.includes('topic-')));
            if (!target) continue;
            r = await run(clone, 'write', `next-${marker}`, `Next ${marker}`, `body ${marker}`, '--supersedes', target, '--date', '2026-12-03');
          } else if (op < 0.85) {
            const target = pick(mdFiles(clone).filter((n) => n.includes('note-')));
            if (!target) continue;
            await run(clone, 'archive', target, '--reason', 'soak');
            continue;
          } else {
            const next = await run(clone, 'ingest', 'next', '--json');
            if (next.code !== 0) continue;
            r =
              rnd() < 0.5
                ? await run(clone, 'ingest', 'accept', '--title', `Ingested ${marker}`, `body ${marker}`, '--date', '2026-12-02')
                : await run(clone, 'ingest', 'accept', '--merge', `shared-${Math.floor(rnd() * 4)}`, `fragment ${marker}`);
          }
          if (r.code === 0) acknowledged.push(marker);
        }
      }
      const order = [...clones].sort(() => rnd() - 0.5);
      for (const c of order) {
        const s = await run(c, 'sync');
        syncs.push({ clone: path.basename(c), code: s.code, out: s.stderr });
      }
    }
    // round once, then all but the last again: the last host's sync already holds every other's work
    for (const c of [...clones, ...clones.slice(0, -1)]) {
      const s = await run(c, 'sync');
      syncs.push({ clone: path.basename(c), code: s.code, out: s.stderr });
    }

    expect(
      syncs.filter((s) => s.code !== 0),
      `seed ${seed}`,
    ).toEqual([]);
    const [first, ...rest] = clones.map(tree);
    for (const t of rest) expect(t).toEqual(first);
    for (const [p, text] of Object.entries(first)) expect(/^(<<<<<<<|=======|>>>>>>>)( |$)/m.test(text), p).toBe(false);
    const texts = allNotes(clones[0]).join('\n');
    expect(acknowledged.length).toBeGreaterThan(ROUNDS * 3);
    // each acknowledged body or fragment, once, whether its note is live or archived now
    for (const m of acknowledged) expect(texts.split(new RegExp(`(?:body|fragment) ${m}\\b`)).length - 1, m).toBe(1);
    // the rounds made the cases the rules are for: one name written on two hosts (renamed), archives
    expect(mdFiles(clones[0]).filter((n) => /-topic-\d+-\d+\.md$/.test(n)).length, 'a clash renamed').toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(clones[0], '.archive')).length).toBeGreaterThan(0);
    const check = await run(clones[0], 'tend', 'check', '--json');
    const findings = check.json.findings.filter((f: any) => f.verdict !== 'ok' && f.verdict !== 'unanchored');
    expect(findings.filter((f: any) => !['fork', 'same_slug'].includes(f.verdict))).toEqual([]);
  }, 300_000);
});
