/**
 * The WordPiece tokens a BERT-uncased tokenizer makes of each word of a text, with where each word
 * lies in the text: the model's input ids, and enough to cut a long text into windows that each fit
 * the model, at word boundaries. It follows the tokenizer's normalizer (lower case, accents stripped, control
 * characters dropped, CJK ideographs one word each) and pre-tokenizer (whitespace and punctuation
 * split, each punctuation mark a word of its own).
 */

export interface Word {
  start: number;
  end: number;
  /** The word's token ids in the vocabulary. */
  ids: number[];
  tokens: number;
}

/** A WordPiece vocabulary: token to id (`model.vocab` of a `tokenizer.json`). */
export type Vocab = ReadonlyMap<string, number>;

const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B820}-\u{2CEAF}\uF900-\uFAFF\u{2F800}-\u{2FA1F}]/u;
/** BERT's punctuation: Unicode P*, and every ASCII symbol. */
const PUNCT = /[\p{P}!-/:-@[-`{-~]/u;
const SPACE = /\s/u;
const CONTROL = /[\p{Cc}\p{Cf}\uFFFD]/u;
const CONTROL_ALL = /[\p{Cc}\p{Cf}\uFFFD]/gu;

/** The words of a text (whitespace-separated runs split at punctuation and CJK ideographs), with their token counts. */
export function wordpieceWords(text: string, vocab: Vocab, maxCharsPerWord = 100): Word[] {
  const words: Word[] = [];
  let start = -1;
  const push = (from: number, to: number) => {
    const ids = pieces(normalize(text.slice(from, to)), vocab, maxCharsPerWord);
    if (ids.length) words.push({ start: from, end: to, ids, tokens: ids.length });
  };
  const close = (end: number) => {
    if (start >= 0) push(start, end);
    start = -1;
  };
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    const next = i + ch.length;
    if (SPACE.test(ch)) close(i);
    else if (CONTROL.test(ch)) {
      // Dropped by the normalizer, so it joins what surrounds it rather than splitting it.
    } else if (PUNCT.test(ch) || CJK.test(ch)) {
      close(i);
      push(i, next);
    } else if (start < 0) start = i;
    i = next;
  }
  close(text.length);
  return words;
}

/** The model's input ids of a text, [CLS] and [SEP] around its tokens. */
export function tokenIds(text: string, vocab: Vocab): number[] {
  return [special(vocab, '[CLS]'), ...wordpieceWords(text, vocab).flatMap((w) => w.ids), special(vocab, '[SEP]')];
}

function special(vocab: Vocab, token: string): number {
  const id = vocab.get(token);
  if (id === undefined) throw new Error(`the vocabulary has no ${token}`);
  return id;
}

function normalize(word: string): string {
  return word
    .replace(CONTROL_ALL, '')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '');
}

/** Greedy longest-match-first WordPiece: the ids of the pieces, or [UNK] alone for a word it cannot cover. */
function pieces(word: string, vocab: Vocab, maxChars: number): number[] {
  if (!word) return [];
  const chars = [...word];
  const unknown = [special(vocab, '[UNK]')];
  if (chars.length > maxChars) return unknown;
  const ids: number[] = [];
  for (let start = 0; start < chars.length; ) {
    let end = chars.length;
    let id: number | undefined;
    for (; end > start; end--) {
      const piece = chars.slice(start, end).join('');
      id = vocab.get(start > 0 ? `##${piece}` : piece);
      if (id !== undefined) break;
    }
    if (id === undefined) return unknown;
    ids.push(id);
    start = end;
  }
  return ids;
}
