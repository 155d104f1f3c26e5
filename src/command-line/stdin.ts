import fs from 'node:fs';
import { ZkError } from '../errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Piped text as UTF-8; bytes that are not would turn into U+FFFD unseen, so they are refused. */
function utf8(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ZkError('usage', 'stdin is not valid UTF-8: convert it first (for example with iconv)');
  }
}

/** Whether the process's standard input is a pipe or a file (something to read, not a terminal). */
export function stdinPiped(): boolean {
  try {
    const st = fs.fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

/** Standard input for a command line: read once, and only when it is a pipe or a file. */
export function processStdin(): () => string | undefined {
  let read: { text?: string; error?: ZkError } | undefined;
  return () => {
    if (!read) {
      read = {};
      try {
        if (stdinPiped()) read.text = utf8(fs.readFileSync(0));
      } catch (err) {
        if (err instanceof ZkError) read.error = err;
        else {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN' || code === 'EOF') read.text = '';
        }
      }
    }
    if (read.error) throw read.error;
    return read.text;
  };
}
