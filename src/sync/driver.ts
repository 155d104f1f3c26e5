import fs from 'node:fs';
import { mergeLines, withEol } from '../corpus/note/lines3.js';
import { mergeNoteTexts } from '../corpus/note/merge3.js';
import { mergeLogTexts } from '../corpus/trace/merge3.js';

// `zk-memory merge-driver [--trace] %O %A %B [PATH]`: the merge driver git runs for a file changed
// on both sides (gitattributes(5)). It writes the result over %A and exits 0 when the merge is
// clean, 1 when it left a conflict for a person (git then reports the file as conflicted). What
// kind of file it merges is told by `--trace` (else a note) or by PATH when a person gives one;
// the drivers `sync` installs never pass git's %P (src/sync/rules.ts says why).

export type DriverOutcome = { code: 0 | 1; text: string };

/** The merge of one path's three versions, by what kind of file it is. */
export function mergeFile(pathname: string, base: string, ours: string, theirs: string): DriverOutcome {
  if (/(?:^|\/)\.zk\/trace\.jsonl$/.test(pathname)) return { code: 0, text: mergeLogTexts(base, ours, theirs) };
  if (/\.md$/i.test(pathname)) {
    const r = mergeNoteTexts(base, ours, theirs);
    if (r.kind === 'clean') return { code: 0, text: r.text };
    // Two notes under one name: both shown to a person merging by hand; `sync` keeps both under two names.
    if (r.kind === 'clash') return { code: 1, text: `<<<<<<< ours\n${withEol(r.ours)}=======\n${withEol(r.theirs)}>>>>>>> theirs\n` };
    return { code: 1, text: r.text };
  }
  const r = mergeLines(base, ours, theirs);
  return { code: r.conflict ? 1 : 0, text: r.text };
}

/** Run as git runs it: three files (and a path or `--trace`); the result replaces the file of the second. */
export function runMergeDriver(argv: string[], stderr: (s: string) => void): number {
  const trace = argv[0] === '--trace';
  const args = trace ? argv.slice(1) : argv;
  if (args.length < 3 || args.length > 4 || args.some((a) => a.startsWith('-'))) {
    stderr('error: usage: zk-memory merge-driver [--trace] BASE OURS THEIRS [PATH] (a git merge driver: %O %A %B)\n');
    return 2;
  }
  const [base, ours, theirs] = args;
  const pathname = trace ? '.zk/trace.jsonl' : (args[3] ?? 'note.md');
  const read = (f: string) => fs.readFileSync(f, 'utf8');
  const r = mergeFile(pathname, read(base), read(ours), read(theirs));
  fs.writeFileSync(ours, r.text);
  return r.code;
}
