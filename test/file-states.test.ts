import { describe, expect, it } from 'vitest';
import { FileStates } from '../src/search/file-states.js';
import type { FileState } from '../src/search/manifest.js';

// The index's knowledge of every note, kept column by column (src/search/file-states.ts), must
// answer as the map of records it replaces, whatever is set, replaced and deleted in what order.

/** A small deterministic generator, so a failure shows the same steps again. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const state = (r: () => number): FileState => ({
  mtimeMs: 1796223933780.6792 + Math.floor(r() * 1e6) / 7,
  ctimeMs: 1796223933780 + Math.floor(r() * 1e6),
  ino: Math.floor(r() * 2 ** 40),
  size: Math.floor(r() * 1e8),
  hash: hashOf(r),
  unsure: r() < 0.3,
});

/** Mostly a hash as the index makes it (16 hex digits, any of them), now and then one it does not make. */
function hashOf(r: () => number): string {
  const odd = ['', 'ABCDEF0123456789', 'not a hash', 'f'.repeat(32), '0123'];
  if (r() < 0.1) return odd[Math.floor(r() * odd.length)];
  return Array.from({ length: 16 }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
}

describe('FileStates', () => {
  it('answers as a Map of the same records through 5,000 random sets, replacements and deletes', () => {
    const r = random(27);
    const model = new Map<string, FileState>();
    const states = new FileStates();
    for (let step = 0; step < 5000; step++) {
      const name = `2026010${Math.floor(r() * 9)}-note-${Math.floor(r() * 400)}.md`;
      if (r() < 0.35) expect(states.delete(name)).toBe(model.delete(name));
      else {
        const s = state(r);
        model.set(name, s);
        expect(states.set(name, s)).toBe(states);
      }
      expect(states.size).toBe(model.size);
      expect(states.has(name)).toBe(model.has(name));
      expect(states.get(name)).toEqual(model.get(name));
      const { hash: _, ...stamp } = model.get(name) ?? { hash: '' };
      expect(states.stamp(name)).toEqual(model.has(name) ? stamp : undefined);
    }
    // Iterated in the map's order (insertion), every way.
    expect([...states]).toEqual([...model]);
    expect([...states.keys()]).toEqual([...model.keys()]);
    expect([...states.values()]).toEqual([...model.values()]);
    const seen: [string, FileState][] = [];
    states.forEach((s, name) => seen.push([name, s]));
    expect(seen).toEqual([...model]);
    expect([...new FileStates(model)]).toEqual([...model]);
  });

  it("hands out records that are the caller's own: changing one changes nothing kept", () => {
    const states = new FileStates([['a.md', { mtimeMs: 1, ctimeMs: 2, ino: 3, size: 4, hash: '00000000000000ff', unsure: false }]]);
    const got = states.get('a.md')!;
    got.size = 99;
    got.unsure = true;
    expect(states.get('a.md')).toEqual({ mtimeMs: 1, ctimeMs: 2, ino: 3, size: 4, hash: '00000000000000ff', unsure: false });
    expect(states.get('b.md')).toBeUndefined();
    expect(states.delete('b.md')).toBe(false);
  });
});
