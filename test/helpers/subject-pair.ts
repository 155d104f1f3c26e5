import { writeNote } from '../../src/corpus/ops.js';
import type { Note } from '../../src/corpus/notes.js';

/** Everyday words: every background note has them all, so they say nothing of a subject. */
export const EVERYDAY = ['care', 'feed', 'daily', 'flour', 'schedule', 'Saturday', 'mornings', 'bake'];

const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'zo', 'pi', 'ne', 'su', 'va'];

/** A made-up word no other note has. */
const ownWord = (i: number) => `${SYLLABLES[i % 10]}${SYLLABLES[Math.floor(i / 10) % 10]}${SYLLABLES[Math.floor(i / 100) % 10]}x`;

/**
 * A corpus's background: `count` notes of three words of their own and every everyday word, so
 * that two background notes share only everyday words. `write`
 * writes one note (a test may give it a later mtime than the notes before it).
 */
export function writeBackground(write: (slug: string, title: string, body: string) => Note, count = 24): Note[] {
  return Array.from({ length: count }, (_, i) => {
    return write(`background-${i}`, `${ownWord(3 * i)} ${ownWord(3 * i + 1)}`, `The ${ownWord(3 * i + 2)} needs ${EVERYDAY.join(', ')}.`);
  });
}

/** Two notes on one subject that share only its rare word, "sourdough", and otherwise everyday words of the background. */
export const SOURDOUGH = [
  { slug: 'sourdough-starter', title: 'Sourdough starter care', body: 'Feed the sourdough starter daily with rye flour.' },
  { slug: 'sourdough-baking', title: 'Sourdough baking schedule', body: 'Bake sourdough loaves on Saturday mornings.' },
] as const;

/** Two unrelated notes that share only an everyday word of the background, "daily". */
export const SHARING_DAILY = [
  { slug: 'bike-commute', title: 'Bike commute', body: 'Ride daily.' },
  { slug: 'tomato-seedlings', title: 'Tomato seedlings', body: 'Water them daily.' },
] as const;

/** A corpus's background and the sourdough pair, written with writeNote (for tests that need no mtimes). */
export function writeSubjectCorpus(root: string): { background: Note[]; pair: Note[] } {
  const background = writeBackground((slug, title, body) => writeNote(root, { slug, title, body }));
  return { background, pair: SOURDOUGH.map((n) => writeNote(root, { ...n })) };
}
