/** Words too common to say anything about which note a question is about. */
const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves tell know anything something does did ever'
  ).split(' '),
);

const MAX_TERMS = 32;

/**
 * The words of a query, lowercased, in order, without duplicates. Every character that is not a
 * letter, digit or mark separates words, so no character of a query is ever syntax. Stopwords are
 * dropped unless nothing else is left.
 */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().normalize('NFC').split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
  const unique = [...new Set(words)];
  const content = unique.filter((w) => !STOPWORDS.has(w) && (w.length > 1 || /\p{N}|[^\p{Script=Latin}]/u.test(w)));
  return (content.length ? content : unique).slice(0, MAX_TERMS);
}

/**
 * A light English stem used as a substring to search for, so "painted" also finds "paint" and
 * "painting". Only suffixes are cut, and never below four letters.
 */
export function stem(word: string): string {
  const cut = (suffix: string, keep = '') =>
    word.endsWith(suffix) && word.length - suffix.length + keep.length >= 4 ? word.slice(0, word.length - suffix.length) + keep : undefined;
  return (
    cut('ies', 'y') ??
    cut('ing') ??
    cut('ed') ??
    (word.endsWith('ed') ? cut('d') : undefined) ??
    (word.endsWith('ss') ? undefined : cut('s')) ??
    word
  );
}

/** The literal terms a lexical search looks for: stems of the query's content words. */
export function searchTerms(query: string): string[] {
  return [...new Set(queryWords(query).map(stem))];
}
