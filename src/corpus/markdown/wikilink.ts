import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';

// Wikilinks as Obsidian, zk and Foam write them: `[[target]]`, `[[target|label]]`,
// `[[target#heading]]`, and embeds `![[target]]`. A micromark text construct, so the parser itself
// decides where they can be: never in code (fenced, indented or inline), HTML or link destinations.

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    wikilink: 'wikilink';
    wikilinkMarker: 'wikilinkMarker';
    wikilinkValue: 'wikilinkValue';
  }
}

const BANG = 33;
const OPEN = 91;
const CLOSE = 93;
/** Longer than any note name or heading: a stray `[[` does not make the tokenizer read a whole paragraph. */
const MAX_VALUE = 1000;

const isLineEnding = (code: Code) => code !== null && code < -2;

function tokenizer(embed: boolean) {
  return function tokenize(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    let size = 0;
    let opened = 0;
    let closed = 0;

    const start: State = (code) => {
      effects.enter('wikilink');
      effects.enter('wikilinkMarker');
      if (embed) {
        effects.consume(code);
        return open;
      }
      return open(code);
    };
    const open: State = (code) => {
      if (code !== OPEN) return nok(code);
      effects.consume(code);
      if (++opened < 2) return open;
      effects.exit('wikilinkMarker');
      return valueStart;
    };
    const valueStart: State = (code) => {
      if (code === null || code === OPEN || code === CLOSE || isLineEnding(code)) return nok(code);
      effects.enter('wikilinkValue');
      return value(code);
    };
    const value: State = (code) => {
      if (code === null || code === OPEN || isLineEnding(code) || size > MAX_VALUE) return nok(code);
      if (code === CLOSE) {
        effects.exit('wikilinkValue');
        effects.enter('wikilinkMarker');
        return close(code);
      }
      effects.consume(code);
      size++;
      return value;
    };
    const close: State = (code) => {
      if (code !== CLOSE) return nok(code);
      effects.consume(code);
      if (++closed < 2) return close;
      effects.exit('wikilinkMarker');
      effects.exit('wikilink');
      return ok;
    };
    return start;
  };
}

const wikilink: Construct = { name: 'wikilink', tokenize: tokenizer(false) };
const wikiEmbed: Construct = { name: 'wikiEmbed', tokenize: tokenizer(true) };

/** The micromark syntax extension; it runs before the link constructs, so `[[x]]` is never read as `[` + link. */
export function wikilinkSyntax(): Extension {
  return { text: { [OPEN]: wikilink, [BANG]: wikiEmbed } };
}
