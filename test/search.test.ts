import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write, zk, zkProcess } from './helpers/corpus.js';

function note(dir: string, name: string, title: string, body: string): void {
  write(dir, name, `---\nuuid: ${crypto.randomUUID()}\ntitle: '${title.replace(/'/g, "''")}'\ndate: 2026-11-01\n---\n\n# ${title}\n\n${body}\n`);
}

const FILLER = 'The team met on Tuesday to review the budget, the hiring plan and the office move. ';

function unrelatedCorpus(): string {
  const root = tempCorpus();
  note(root, '20261101-servers.md', 'Server move', 'Last year we moved the servers to the new rack. ' + FILLER);
  note(root, '20261102-budget.md', 'Yearly budget', 'The yearly budget was approved last week. ' + FILLER);
  note(root, '20261103-groceries.md', 'Groceries', 'Buy milk (and eggs) + bread. C++ book for Sam.');
  note(root, '20261104-trip.md', 'Trip', 'A trip to the lake in spring, with photos of the boats. ' + FILLER);
  note(root, '20261105-caroline.md', 'Caroline', 'I painted that lake sunrise, the one with the mist over the water.');
  for (let i = 0; i < 15; i++) note(root, `20261110-misc-${i}.md`, `Misc ${i}`, FILLER.repeat(3));
  return root;
}

describe.each(['rg', 'fts'])('search with %s', (backend) => {
  it('answers a natural-language question at rank 1', async () => {
    const root = unrelatedCorpus();
    const r = await zk(['--root', root, '--json', 'search', 'what did Caroline paint last year?', '--backend', backend]);
    expect(r.code).toBe(0);
    expect(r.json.backend).toBe(backend);
    expect(r.json.hits[0].path).toBe('20261105-caroline.md');
    expect(r.json.hits[0].snippet).toContain('painted that lake sunrise');
    expect(r.json.hits[0]).toMatchObject({ title: 'Caroline', slug: '20261105-caroline', kind: null, superseded_by: null });
  });

  it('takes regex and query characters literally', async () => {
    const root = unrelatedCorpus();
    for (const q of ['milk (and eggs) + bread.*', 'C++', '"bread" OR:*']) {
      const r = await zk(['--root', root, '--json', 'search', q, '--backend', backend]);
      expect(r.code, q).toBe(0);
      expect(r.json.hits[0].path, q).toBe('20261103-groceries.md');
    }
    const none = await zk(['--root', root, '--json', 'search', '(+.*)', '--backend', backend]);
    expect(none.code).toBe(1);
    expect(none.json).toEqual({ ok: true, query: '(+.*)', backend, hits: [], server: false });
  });

  it('leaves archived, hidden and non-markdown files out', async () => {
    const root = unrelatedCorpus();
    fs.mkdirSync(path.join(root, '.archive'));
    note(path.join(root, '.archive'), 'old-zebra.md', 'Old zebra', 'zebra zebra');
    note(root, '.hidden-zebra.md', 'Hidden zebra', 'zebra');
    write(root, 'zebra.txt', 'zebra');
    note(root, '20261120-zebra.md', 'Zebra', 'One zebra.');
    const r = await zk(['--root', root, '--json', 'search', 'zebra', '--backend', backend]);
    expect(r.json.hits.map((h: any) => h.path)).toEqual(['20261120-zebra.md']);
  });
});

/** Words that match no query of the snippet tests: room between passages. */
const PADDING = 'Filler about the weather and the harbour lights at dusk. '.repeat(6);
const FRAGMENT_MARKUP = /---|\*\d{4}-\d{2}-\d{2}|probe-agent/;

/** A note whose own text and three merged fragments each say something the snippet tests look for. */
async function mergedCorpus(): Promise<{ root: string; today: string }> {
  const root = unrelatedCorpus();
  await zk(['--root', root, 'write', 'dana', 'Dana Okafor', `Dana Okafor leads the welding crew at the Rotterdam shipyard. ${PADDING}`]);
  await zk(['--root', root, 'merge', 'dana', `The Atlas deadline is 13 March. ${PADDING}`, '--source', 'probe-agent']);
  await zk(['--root', root, 'merge', 'dana', `The Atlas deadline is now 20 March. ${PADDING}`, '--source', 'probe-agent']);
  await zk(['--root', root, 'merge', 'dana', 'Dana likes green tea.', '--source', 'probe-agent']);
  // Written by hand in the fragment form every version of the tool writes.
  write(
    root,
    'okapi.md',
    '---\nuuid: 33333333-3333-3333-3333-333333333333\ntitle: Okapi\ndate: 2026-11-01\n---\n\n# Okapi\n\nAn okapi at the zoo.\n\n\n---\n*2026-12-01 (probe-agent):* It likes quinces.\n',
  );
  const d = new Date();
  return { root, today: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}` };
}

describe.each(['rg', 'fts'])('snippets with %s', (backend) => {
  const search = async (root: string, query: string) => {
    const r = await zk(['--root', root, '--json', 'search', query, '--backend', backend]);
    expect(r.code, r.stderr).toBe(0);
    return r.json.hits[0];
  };

  it("come from the note's own text when it holds the best match, though the latest fragment mentions the query", async () => {
    const { root, today } = await mergedCorpus();
    const hit = await search(root, 'Dana welding Rotterdam shipyard');
    expect(hit).toMatchObject({ title: 'Dana Okafor', updated: today });
    expect(hit.snippet).toMatch(/^Dana Okafor leads the welding crew at the Rotterdam shipyard\. Filler/);
    expect(hit.snippet).not.toContain('green tea');
  });

  it("show a merged fragment's text without its separator or date line", async () => {
    const { root } = await mergedCorpus();
    const hit = await search(root, 'green tea');
    expect(hit.snippet).toMatch(/^….*Dana likes green tea\.$/);
    expect(hit.snippet).not.toMatch(FRAGMENT_MARKUP);
    const okapi = await search(root, 'quinces');
    expect(okapi).toMatchObject({ path: 'okapi.md', updated: '2026-12-01' });
    expect(okapi.snippet).toBe('An okapi at the zoo. It likes quinces.');
    const text = await zk(['--root', root, 'search', 'green tea', '--backend', backend]);
    expect(text.stdout).toContain('Dana likes green tea.');
    expect(text.stdout).not.toMatch(FRAGMENT_MARKUP);
  });

  it('show the latest of passages that match equally well: the value a merge updated', async () => {
    const { root } = await mergedCorpus();
    const hit = await search(root, 'Atlas deadline');
    expect(hit.snippet).toMatch(/^…The Atlas deadline is now 20 March\./);
    expect(hit.snippet).not.toMatch(FRAGMENT_MARKUP);
    expect(hit.snippet).not.toContain('13 March');
  });
});

describe('rg ranking', () => {
  it('ranks the densest and rarest-term notes first even with --limit 3', async () => {
    const root = tempCorpus();
    for (let i = 0; i < 48; i++) note(root, `a${String(i).padStart(2, '0')}.md`, `Note ${i}`, `We took the kayak out once. ${FILLER.repeat(2)}`);
    note(root, 'zz-dense.md', 'Paddling', 'kayak kayak kayak. The kayak club. A new kayak.');
    note(root, 'zz-rare.md', 'Ice trip', `The kayak trip to the glacier. ${FILLER.repeat(2)}`);
    const r = await zk(['--root', root, '--json', 'search', 'kayak glacier', '--backend', 'rg', '--limit', '3']);
    expect(r.json.hits).toHaveLength(3);
    expect(r.json.hits.map((h: any) => h.path).slice(0, 2)).toEqual(['zz-rare.md', 'zz-dense.md']);
    const dense = await zk(['--root', root, '--json', 'search', 'kayak', '--backend', 'rg', '--limit', '1']);
    expect(dense.json.hits.map((h: any) => h.path)).toEqual(['zz-dense.md']);
  });

  it('answers through a pipe when no temporary file can be made for ripgrep', async () => {
    const root = unrelatedCorpus();
    const found = (r: { json: any }) => r.json.hits.map((h: any) => [h.path, h.score]);
    const usual = await zkProcess(['--root', root, '--json', 'search', 'lake', '--backend', 'rg']);
    const r = await zkProcess(['--root', root, '--json', 'search', 'lake', '--backend', 'rg'], { env: { TMPDIR: path.join(root, 'no-such-folder') } });
    expect(r.code, r.stderr).toBe(0);
    expect(
      found(usual)
        .map(([p]: [string]) => p)
        .sort(),
    ).toEqual(['20261104-trip.md', '20261105-caroline.md']);
    expect(found(r)).toEqual(found(usual));
  });

  it('uses ZK_MEMORY_RG when set', async () => {
    const root = unrelatedCorpus();
    const r = await zk(['--root', root, 'search', 'lake', '--backend', 'rg'], { env: { ZK_MEMORY_RG: '/nonexistent/rg' } });
    expect(r.code).toBe(4);
    expect(r.stderr.trim()).toMatch(/^error: cannot run ripgrep \(\/nonexistent\/rg\)/);
  });
});

describe('fts index freshness', () => {
  it('finds a note written a moment ago, forgets a deleted one, survives a deleted index', async () => {
    const root = unrelatedCorpus();
    expect((await zk(['--root', root, '--json', 'search', 'lake', '--backend', 'fts'])).json.hits.length).toBeGreaterThan(0);
    await zk(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi at the zoo.']);
    const found = await zk(['--root', root, '--json', 'search', 'okapi', '--backend', 'fts']);
    expect(found.json.hits.map((h: any) => h.title)).toEqual(['Okapi']);
    await zk(['--root', root, 'merge', 'okapi', 'It likes quinces.']);
    expect((await zk(['--root', root, '--json', 'search', 'quinces', '--backend', 'fts'])).json.hits.map((h: any) => h.title)).toEqual(['Okapi']);
    fs.rmSync(path.join(root, found.json.hits[0].path));
    const gone = await zk(['--root', root, '--json', 'search', 'okapi', '--backend', 'fts']);
    expect(gone.code).toBe(1);
    expect(gone.json.hits).toEqual([]);
    fs.rmSync(path.join(root, '.zk', 'index'), { recursive: true });
    const again = await zk(['--root', root, '--json', 'search', 'caroline', '--backend', 'fts']);
    expect(again.json.hits[0].path).toBe('20261105-caroline.md');
  });

  it('index status tells freshness; index refreshes; a corrupt index is rebuilt', async () => {
    const root = unrelatedCorpus();
    expect((await zk(['--root', root, '--json', 'index', 'status'])).json.index).toMatchObject({ exists: false, fresh: false });
    const built = await zk(['--root', root, '--json', 'index']);
    expect(built.json).toMatchObject({ ok: true, action: 'rebuilt', notes: 20 });
    await zk(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi.']);
    expect((await zk(['--root', root, '--json', 'index', 'status'])).json.index).toMatchObject({ exists: true, fresh: false, pending: 1 });
    const refreshed = await zk(['--root', root, '--json', 'index']);
    expect(refreshed.json).toMatchObject({ action: 'refreshed', added: 1, changed: 0, removed: 0, notes: 21 });
    // Scribble over every data file of the table.
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(path.join(root, '.zk', 'index')).filter((f) => !f.endsWith('manifest.json'))) fs.writeFileSync(f, 'garbage');
    const r = await zk(['--root', root, '--json', 'search', 'okapi']);
    expect(r.code).toBe(0);
    expect(r.json.hits[0].title).toBe('Okapi');
  });

  it('auto falls back to rg (exit 0) when the index cannot be refreshed; fts alone fails with exit 4', async () => {
    const root = unrelatedCorpus();
    fs.mkdirSync(path.join(root, '.zk', 'index', '.lock'), { recursive: true }); // a live index build holds the index lock
    const env = { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '60' };
    const auto = await zk(['--root', root, '--json', 'search', 'caroline'], { env });
    expect(auto.code).toBe(0);
    expect(auto.json.backend).toBe('rg');
    expect(auto.json.fallback).toMatch(/^fts failed: index busy: lock held/);
    expect(auto.json.hits[0].path).toBe('20261105-caroline.md');
    const fts = await zk(['--root', root, 'search', 'caroline', '--backend', 'fts'], { env });
    expect(fts.code).toBe(4);
    const rg = await zk(['--root', root, '--json', 'search', 'caroline'], { env: { ...env, ZK_MEMORY_BACKEND: 'rg' } });
    expect(rg.json).toMatchObject({ backend: 'rg', hits: [{ path: '20261105-caroline.md' }] });
    expect(rg.json.fallback).toBeUndefined();
    expect(fs.existsSync(path.join(root, '.zk', 'index', 'manifest.json'))).toBe(false);
  });

  it('index building never takes the corpus lock: a held corpus lock does not stop a build, a search or a vector-less rebuild', async () => {
    const root = unrelatedCorpus();
    fs.mkdirSync(path.join(root, '.zk', 'lock')); // a live writer holds the corpus lock
    const env = { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '60' };
    const fts = await zk(['--root', root, '--json', 'search', 'caroline', '--backend', 'fts'], { env });
    expect(fts.code).toBe(0);
    expect(fts.json.hits[0].path).toBe('20261105-caroline.md');
    write(root, '20261201-later.md', '# Later\n\nCaroline came back from the lake.\n');
    const again = await zk(['--root', root, '--json', 'search', 'lake', '--backend', 'fts'], { env });
    expect(again.json.hits.map((h: { path: string }) => h.path)).toContain('20261201-later.md');
    const rebuilt = await zk(['--root', root, '--json', 'index', '--rebuild'], { env });
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json).toMatchObject({ action: 'rebuilt', notes: 21 });
    expect(fs.existsSync(path.join(root, '.zk', 'lock'))).toBe(true);
  });

  it('leaves superseded notes out unless --history', async () => {
    const root = unrelatedCorpus();
    write(
      root,
      'london.md',
      '---\nuuid: 11111111-1111-1111-1111-111111111111\ntitle: Judy in London\nsuperseded_by: 22222222-2222-2222-2222-222222222222\n---\n# Judy in London\n\nJudy lives in London.\n',
    );
    write(
      root,
      'paris.md',
      '---\nuuid: 22222222-2222-2222-2222-222222222222\ntitle: Judy in Paris\nsupersedes: [11111111-1111-1111-1111-111111111111]\n---\n# Judy in Paris\n\nJudy moved to Paris.\n',
    );
    for (const backend of ['rg', 'fts']) {
      const now = await zk(['--root', root, '--json', 'search', 'judy', '--backend', backend]);
      expect(
        now.json.hits.map((h: any) => h.path),
        backend,
      ).toEqual(['paris.md']);
      const all = await zk(['--root', root, '--json', 'search', 'judy', '--backend', backend, '--history']);
      expect(all.json.hits.map((h: any) => h.path).sort(), backend).toEqual(['london.md', 'paris.md']);
      expect(all.json.hits.find((h: any) => h.path === 'london.md').superseded_by).toBe('22222222-2222-2222-2222-222222222222');
    }
  });

  it('an unknown backend is a usage error', async () => {
    const root = unrelatedCorpus();
    const r = await zk(['--root', root, 'search', 'x', '--backend', 'magic']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: unknown search backend: "magic" (one of auto, rg, fts, vector, hybrid)');
  });
});
