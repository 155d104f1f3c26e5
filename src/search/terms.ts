import porter2 from 'wink-porter2-stemmer';

/** Words too common to say anything about which note a question is about. */
const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves tell know anything something does did ever ' +
    // The scaffolding of a question ("what kind of", "how many", "what did she say about"): it
    // tells what shape the answer has, not which note holds it.
    'say said says told kind kinds type types sort often many much like also really describe described mention mentioned ' +
    'think thing things way ways'
  ).split(' '),
);

const MAX_TERMS = 32;

/** The words of a text, lowercased, in order: runs of letters, digits and marks. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFC')
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter(Boolean);
}

/**
 * The words of a query, lowercased, in order, without duplicates. Every character that is not a
 * letter, digit or mark separates words, so no character of a query is ever syntax. Stopwords are
 * dropped unless nothing else is left.
 */
export function queryWords(query: string): string[] {
  const unique = [...new Set(wordsOf(query))];
  const content = unique.filter((w) => !STOPWORDS.has(w) && (w.length > 1 || /\p{N}|[^\p{Script=Latin}]/u.test(w)));
  return (content.length ? content : unique).slice(0, MAX_TERMS);
}

/**
 * The Porter2 (Snowball English) stem of a lowercase word: "painted", "painting" and "paints" are
 * all "paint". The full-text index stems with the same algorithm, so both lexical backends agree
 * on which words are one term.
 */
export function stem(word: string): string {
  let s = STEMS.get(word);
  if (s === undefined) {
    if (STEMS.size >= STEM_CACHE) STEMS.clear();
    STEMS.set(word, (s = /^\p{Script=Latin}+$/u.test(word) ? porter2(word) : word));
  }
  return s;
}

/**
 * Stems already computed: re-ranking stems the text of every candidate note, and a vocabulary
 * repeats. A pure function's memo, so sharing it across callers changes no answer; bounded.
 */
const STEMS = new Map<string, string>();
const STEM_CACHE = 50_000;

/** The stems of a text's words, in order. */
export function stemsOf(text: string): string[] {
  return wordsOf(text).map(stem);
}

/**
 * What finds which of `stems` a text's words have (as `stemsOf` would find them). Only the words
 * that begin as one of them does are looked at and stemmed, a fraction of a text: a Porter2 stem
 * begins with its word's first letter (its steps change only a word's end, and its exceptions keep
 * the first letter), and a word of another script is its own stem.
 */
export function stemFinder(stems: readonly string[]): (text: string) => Set<string> {
  const wanted = new Set(stems);
  const firsts = [...new Set(stems.filter(Boolean).map((s) => [...s][0]))].map((c) => c.replace(/[\\\]^-]/g, '\\$&'));
  if (!firsts.length) return () => new Set();
  // A word, as `wordsOf` splits them: a whole run of letters, digits and marks.
  const words = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])[${firsts.join('')}][\\p{L}\\p{N}\\p{M}]*`, 'gu');
  return (text) => {
    const found = new Set<string>();
    for (const [word] of text.toLowerCase().normalize('NFC').matchAll(words)) {
      const s = stem(word);
      if (wanted.has(s)) found.add(s);
    }
    return found;
  };
}

/** One term of a query: the stem it stands for and the literal start every word of that stem shares. */
export interface QueryTerm {
  stem: string;
  /**
   * What a word must start with to possibly have this stem: the longest common start of the
   * query word and its stem ("happ" for "happy", whose stem is "happi"), or the word itself when
   * that start is under three letters ("dying", stem "die").
   */
  prefix: string;
  /** A word of one or two letters: only that very word matches ("c" from "C++" is not every c-word). */
  whole: boolean;
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/** The terms a lexical search looks for: the query's content words by stem, without duplicates. */
function termsOf(words: readonly string[]): QueryTerm[] {
  const byStem = new Map<string, QueryTerm>();
  for (const word of words) {
    const s = stem(word);
    const whole = [...word].length < 3;
    const common = commonPrefix(word, s);
    const prefix = whole || [...common].length < 3 ? word : common;
    const known = byStem.get(s);
    if (!known) byStem.set(s, { stem: s, prefix, whole });
    else if (!known.whole && prefix.length < known.prefix.length && known.prefix.startsWith(prefix)) known.prefix = prefix;
  }
  return [...byStem.values()];
}

/**
 * A query as every backend and the snippet read it: parsed once where a search begins, so that
 * its words are split and stemmed once however many rankings and snippets look at it.
 */
export interface Query {
  /** As it was asked: what an embedder embeds. */
  readonly text: string;
  /** Its content words (see `queryWords`); none means there is nothing to look for. */
  readonly words: readonly string[];
  /** Its terms by stem. */
  readonly terms: readonly QueryTerm[];
  /** The stems of its terms: what a note must contain to match. */
  readonly stems: readonly string[];
  /** Where a snippet looks for it: the literal start of each term's words. */
  readonly prefixes: readonly string[];
}

export function parseQuery(text: string): Query {
  const words = queryWords(text);
  const terms = termsOf(words);
  return { text, words, terms, stems: terms.map((t) => t.stem), prefixes: terms.map((t) => t.prefix) };
}
