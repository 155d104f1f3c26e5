import { describe, expect, it } from 'vitest';
import { KeptAnswers } from '../src/corpus/note/kept-answers.js';

// What a resident process keeps of one kind of answer (src/corpus/note/kept-answers.ts) places a
// note added, removed or changed in its lists in file-name order without sorting them again: after
// any run of changes they must be the lists made anew, and a list handed out before stays as it was.

const stamp = (n: number) => ({ mtimeMs: n + 0.5, ctimeMs: n + 0.25, ino: n, size: n * 3 });

/** A small generator of its own, so that a failure can be run again. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

describe('the answers a resident process keeps', () => {
  it('lists them in file-name order after any run of additions, changes and removals, as a list made anew', () => {
    const r = prng(7);
    const names = Array.from({ length: 60 }, (_, i) => `2026${String(1 + (i % 12)).padStart(2, '0')}01-note-${i}.md`);
    const truth = new Map<string, string>();
    for (const n of names.slice(0, 30)) truth.set(n, `${n} v0`);
    const sorted = () => [...truth.keys()].sort();
    const kept = new KeptAnswers(sorted().map((name, i) => ({ name, st: stamp(i), value: truth.get(name)!, keep: true })));
    for (let step = 0; step < 400; step++) {
      const name = names[Math.floor(r() * names.length)];
      const roll = r();
      if (roll < 0.45) {
        truth.set(name, `${name} v${step}`);
        kept.set(name, stamp(step), truth.get(name)!, true);
      } else if (roll < 0.7) {
        truth.delete(name);
        kept.delete(name);
      }
      // Asked for now and then: changes pile up between askings, as between a server's calls.
      if (roll > 0.8) {
        const before = kept.values();
        const copy = [...before];
        expect(before).toEqual(sorted().map((n) => truth.get(n)));
        // A change after the list was handed out leaves that list as it was.
        kept.set(sorted()[0] ?? names[0], stamp(-1), `changed after ${step}`, true);
        truth.set(sorted()[0] ?? names[0], `changed after ${step}`);
        expect(kept.values()).toEqual(sorted().map((n) => truth.get(n)));
        expect(before).toEqual(copy);
      }
    }
    expect(kept.values()).toEqual(sorted().map((n) => truth.get(n)));
  });
});
