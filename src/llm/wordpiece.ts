/**
 * How many WordPiece tokens a BERT-uncased tokenizer makes of each word of a text, with where each
 * word lies in the text: enough to cut a long text into windows that each fit the model, at word
 * boundaries. It follows the tokenizer's normalizer (lower case, accents stripped, control
 * characters dropped, CJK ideographs one word each) and pre-tokenizer (whitespace and punctuation
 * split, each punctuation mark a word of its own).
 */

export interface Word {
  start: number;
  end: number;
  tokens: number;
}

const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B820}-\u{2CEAF}\uF900-\uFAFF\u{2F800}-\u{2FA1F}]/u;
/** BERT's punctuation: Unicode P*, and every ASCII symbol. */
const PUNCT = /[\p{P}!-/:-@[-`{-~]/u;
const SPACE = /\s/u;
const CONTROL = /[\p{Cc}\p{Cf}]/u;

/** The words of a text (whitespace-separated runs split at punctuation and CJK ideographs), with their token counts. */
export function wordpieceWords(text: string, vocab: ReadonlySet<string>, maxCharsPerWord = 100): Word[] {
  const words: Word[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start >= 0) words.push({ start, end, tokens: pieces(normalize(text.slice(start, end)), vocab, maxCharsPerWord) });
    start = -1;
  };
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    const next = i + ch.length;
    if (SPACE.test(ch) || CONTROL.test(ch) || ch === '\uFFFD') close(i);
    else if (PUNCT.test(ch) || CJK.test(ch)) {
      close(i);
      words.push({ start: i, end: next, tokens: 1 });
    } else if (start < 0) start = i;
    i = next;
  }
  close(text.length);
  return words.filter((w) => w.tokens > 0);
}

function normalize(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
}

/** Greedy longest-match-first WordPiece: the number of pieces, or 1 ([UNK]) for a word it cannot cover. */
function pieces(word: string, vocab: ReadonlySet<string>, maxChars: number): number {
  if (!word) return 0;
  const chars = [...word];
  if (chars.length > maxChars) return 1;
  let count = 0;
  for (let start = 0; start < chars.length; count++) {
    let end = chars.length;
    for (; end > start; end--) {
      const piece = chars.slice(start, end).join('');
      if (vocab.has(start > 0 ? `##${piece}` : piece)) break;
    }
    if (end === start) return 1;
    start = end;
  }
  return count;
}
