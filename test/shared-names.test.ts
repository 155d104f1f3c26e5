import { describe, expect, it } from 'vitest';
import { SharedNames } from '../src/corpus/files/shared-names.js';

// A long-running process gives every listing of a root the strings of the last one
// (src/corpus/files/shared-names.ts): what a listing says must stay exactly what it was.

describe('note names shared between listings', () => {
  it('give back every listing as it was, names added, removed and out of order alike', () => {
    const shared = new SharedNames();
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pool = Array.from({ length: 300 }, (_, i) => `2026${String(rand(10000)).padStart(4, '0')}-note-${i}.md`);
    for (let round = 0; round < 40; round++) {
      const listing = pool.filter(() => rand(3) > 0).sort();
      // Now and then not a listing: names out of order are given back as they are.
      const names = round % 5 === 4 ? [...listing].reverse() : listing;
      const asked = [...names];
      const root = round % 7 === 6 ? '/another/root' : '/the/root';
      expect(shared.share(root, names)).toEqual(asked);
    }
  });
});
