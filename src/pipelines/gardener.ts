import os from 'node:os';
import { now } from '../context.js';
import { asZkError, ZkError } from '../errors.js';
import { archiveFolder, archiveReplaced } from '../corpus/ops/archive.js';
import { mergeFragment } from '../corpus/note/format.js';
import { withCaretakerLease } from '../corpus/lock/lease.js';
import { withCorpusLock } from '../corpus/lock/lock.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { listNoteFiles } from '../corpus/files/note-files.js';
import { appendFragment } from '../corpus/ops/merge.js';
import { defaultSource } from '../corpus/note/source.js';
import { sourceFromAuthor } from '../corpus/note/source.js';
import { addRelated, linkTarget, ownText, relatedTargets, type LinkStyle, type LinkTarget } from '../corpus/graph/related.js';
import { rewriteNoteLocked } from '../corpus/ops/rewrite.js';
import { isoDate } from '../corpus/note/slug.js';
import { loadNoteStates, GardenerRecord } from '../corpus/ops/gardener-record.js';
import { trace } from '../corpus/trace/trace.js';
import type { Candidate } from '../judge/schemas.js';
import type { StructuredLLM } from '../llm/types.js';
import type { RelevanceFloor } from '../search/types.js';
import { repointInbound } from '../tend/repoint.js';
import { decideTarget, findCandidates } from './integrate.js';
import { splitCandidates } from './split-candidates.js';
import { splitNote } from './split.js';

export const DEFAULT_TEND_LIMIT = 20;
/** How much of a note's text, after its title, the gardener searches with. */
const QUERY_BODY_CHARS = 200;
/**
 * How much of that query (a title and a sentence or two, a dozen words or more) another note must
 * share to be judged on its share alone: less than for a topic of a few words, as two notes on one
 * subject still word most of their sentences differently.
 */
const NOTE_MIN_SHARE = 1 / 3;

/**
 * The gardener's relevance floor for a note: NOTE_MIN_SHARE of its query's words, or a word of
 * both titles that few notes hold. Two notes on one subject may share only its word ("Sourdough
 * starter care", "Sourdough baking schedule"), and a share of words, counted or weighed by rarity,
 * cannot tell it from an incidental word. A title names what its note is about, so a word of both
 * titles held by the two notes and at most max(2, n/500) others of a corpus of n is their subject.
 * See docs/search.md for what this floor measures.
 */
export const noteFloor = (note: Note): RelevanceFloor => ({
  minShare: NOTE_MIN_SHARE,
  rareTitleWord: { title: note.title, notes: (n) => 1 + Math.max(2, Math.floor(n / 500)) },
});

export type GardenerAction = 'kept' | 'merged' | 'linked' | 'split' | 'skipped' | 'failed';

/** What the pass did (or, on a dry run, would do) with one note. */
export interface GardenerRow {
  note: string;
  action: GardenerAction;
  /** `split` for the split sweep, `tend` for the walk over recent writes. */
  stage: 'split' | 'tend';
  /** The note a duplicate was folded into. */
  target?: string;
  /** Notes added to the Related section. */
  links?: string[];
  /** The children of a split. */
  children?: string[];
  /** On a dry run: the titles of the children a split would make. */
  planned?: string[];
  /** Why a note was skipped, or why the fold the judge proposed for it was refused. */
  reason?: string;
  error?: string;
}

export interface GardenerReport {
  dryRun: boolean;
  rows: GardenerRow[];
  summary: Record<string, number>;
  /** The errors behind the failed rows (their exit codes tell an LLM failure from a busy corpus). */
  errors: ZkError[];
  /** The note at which the pass stopped because the LLM endpoint cannot be reached; the notes after it were not looked at. */
  stoppedAt?: string;
}

export interface GardenerOptions {
  llm: StructuredLLM;
  /** How many notes that changed to tend, newest first (unchanged ones cost nothing and do not count). */
  limit?: number;
  /** Judge the N largest notes for a split first: the only way the gardener splits. */
  splitSweep?: number;
  maxFragments?: number;
  /** Show what would happen: no note, trace line, gardener's record or lease is written. */
  dryRun?: boolean;
  source?: string;
  backend?: string;
  /** How the links the gardener adds are written (default Markdown links). */
  linkStyle?: LinkStyle;
  /** Told about each note before it is worked on. */
  progress?: (line: string) => void;
}

interface Pass {
  root: string;
  o: GardenerOptions;
  record: GardenerRecord;
  rows: GardenerRow[];
  errors: ZkError[];
  stoppedAt?: string;
}

/**
 * The gardener: reconcile what was written since the last pass. Under the caretaker lease (not on
 * a dry run), it optionally splits the largest notes, then walks the notes newest first: a note
 * unchanged since it was last tended is skipped; a duplicate is folded into the note it repeats
 * (decisions never fold, nor notes of one split family into one another); otherwise related notes
 * are linked both ways. One note's failure makes its row `failed` and the pass goes on, unless the
 * LLM endpoint cannot be reached (`llm_unreachable`): every later note would fail alike, so the pass
 * stops there and the notes not reached stay due for the next pass.
 */
export async function runGardener(root: string, o: GardenerOptions): Promise<GardenerReport> {
  if (!o.dryRun) return withCaretakerLease(root, 'tend-writes', () => gardenPass(root, o));
  // A dry run searches with the backend the real pass would use, so its plan is the pass's plan;
  // it may bring the search index up to date (derived state), but writes nothing of the corpus.
  return gardenPass(root, o);
}

function summarize(rows: GardenerRow[]): Record<string, number> {
  const summary: Record<string, number> = {};
  for (const r of rows) summary[r.action] = (summary[r.action] ?? 0) + 1;
  return summary;
}

async function gardenPass(root: string, o: GardenerOptions): Promise<GardenerReport> {
  const started = new Date(now()).toISOString();
  const pass: Pass = { root, o, record: GardenerRecord.load(root), rows: [], errors: [] };
  try {
    if (o.splitSweep) await sweep(pass, o.splitSweep);
    if (!pass.stoppedAt) await walk(pass, o.limit ?? DEFAULT_TEND_LIMIT);
  } finally {
    if (!o.dryRun) {
      const summary = summarize(pass.rows);
      pass.record.save({ started, finished: new Date(now()).toISOString(), host: os.hostname(), summary }, listNoteFiles(root));
      const stopped = pass.stoppedAt ? { stopped_at: pass.stoppedAt } : {};
      trace(root, 'garden_pass', { started, summary, limit: o.limit ?? DEFAULT_TEND_LIMIT, split_sweep: o.splitSweep ?? 0, ...stopped });
    }
  }
  return { dryRun: Boolean(o.dryRun), rows: pass.rows, summary: summarize(pass.rows), errors: pass.errors, stoppedAt: pass.stoppedAt };
}

/** Add a row; every action but a skip is traced (never on a dry run). */
function report(pass: Pass, row: GardenerRow): void {
  pass.rows.push(row);
  if (!pass.o.dryRun && row.action !== 'skipped') trace(pass.root, 'garden', { ...row });
}

function fail(pass: Pass, note: string, stage: GardenerRow['stage'], err: unknown): void {
  const e = asZkError(err);
  pass.errors.push(e);
  if (e.code === 'llm_unreachable') pass.stoppedAt = note;
  report(pass, { note, action: 'failed', stage, error: e.message });
}

/** The split sweep: the largest notes, each judged once per content. */
async function sweep(pass: Pass, top: number): Promise<void> {
  const { root, o, record } = pass;
  for (const note of splitCandidates(root, top)) {
    if (record.isSplitJudged(note.path, note.raw)) {
      report(pass, { note: note.path, action: 'skipped', stage: 'split', reason: 'unchanged' });
      continue;
    }
    o.progress?.(`judging whether to split ${note.path}`);
    try {
      const r = await splitNote(root, note.path, { llm: o.llm, maxFragments: o.maxFragments, source: o.source, dryRun: o.dryRun, linkStyle: o.linkStyle });
      if (r.action === 'not_split') {
        record.markSplitJudged(note.path, r.note.raw);
        report(pass, { note: note.path, action: 'kept', stage: 'split' });
        continue;
      }
      if (o.dryRun) {
        report(pass, { note: note.path, action: 'split', stage: 'split', planned: (r.planned ?? []).map((f) => f.title) });
        continue;
      }
      for (const n of [r.parent!, ...r.children]) record.markWritten(n.path, n.raw);
      for (const c of r.changes) record.ownEdit(c);
      report(pass, { note: note.path, action: 'split', stage: 'split', children: r.children.map((c) => c.path) });
    } catch (err) {
      fail(pass, note.path, 'split', err);
      if (pass.stoppedAt) return;
    }
  }
}

/** The walk over recent writes: newest first, until `limit` changed notes have been tended. */
async function walk(pass: Pass, limit: number): Promise<void> {
  const { root, record } = pass;
  // Ordered and recognised from a cache of each note's hash: a note read only when its turn comes
  // and it is not the text last tended.
  const notes = loadNoteStates(root).sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path));
  let tended = 0;
  for (const listed of notes) {
    if (tended >= limit) break;
    if (record.isTendedHash(listed.path, listed.hash)) {
      report(pass, { note: listed.path, action: 'skipped', stage: 'tend', reason: 'unchanged' });
      continue;
    }
    // Read again: an earlier step of this pass may have changed or folded it.
    const note = readNoteFile(root, listed.path);
    if (!note) continue;
    if (record.isTended(note.path, note.raw)) {
      report(pass, { note: note.path, action: 'skipped', stage: 'tend', reason: 'unchanged' });
      continue;
    }
    if (note.superseded_by) {
      record.markTended(note.path, note.raw);
      report(pass, { note: note.path, action: 'skipped', stage: 'tend', reason: 'superseded' });
      continue;
    }
    tended++;
    pass.o.progress?.(`tending ${note.path} (${tended}/${limit})`);
    try {
      await tendNote(pass, note);
    } catch (err) {
      fail(pass, note.path, 'tend', err);
      if (pass.stoppedAt) return;
    }
  }
}

/** A note as the merge judge sees a candidate: its own text, searched by title and opening. */
function asCandidate(note: Note): Candidate {
  const text = ownText(note.parsed.body);
  const opening = text.replace(/\s+/g, ' ').slice(0, QUERY_BODY_CHARS);
  return { kind: note.kind ?? 'concept', topic: `${note.title} ${opening}`.trim(), title: note.title, slug: '', content: text || note.title };
}

/** The notes the judge is shown for a note being tended: a search on its title and opening, past the relevance floor. */
export async function tendCandidates(root: string, note: Note, backend?: string, floor = noteFloor): Promise<Note[]> {
  return findCandidates(root, asCandidate(note), { backend, exclude: [note.path], floor: floor(note) });
}

async function tendNote(pass: Pass, note: Note): Promise<void> {
  const { root, o } = pass;
  const c = asCandidate(note);
  const found = await tendCandidates(root, note, o.backend);
  // Notes of the note's own split family may be shown and linked, but are never folded into.
  const d = await decideTarget(root, c, {
    llm: o.llm,
    found,
    allowSupersede: false,
    untraced: o.dryRun,
    trace: { gardener: note.path },
    placing: note,
  });
  if (d.action === 'merge' && d.target) return fold(pass, note, d.target);
  return link(pass, note, found.map(linkTarget), d.refused);
}

/** Add `targets` to a note's Related section under the lock: what was added, and the change. */
async function addRelatedLocked(pass: Pass, name: string, targets: LinkTarget[]) {
  let added: LinkTarget[] = [];
  const change = await rewriteNoteLocked(pass.root, name, (n) => {
    const r = addRelated(n, targets, pass.o.linkStyle);
    added = r.added;
    return r.text;
  });
  if (change) pass.record.ownEdit(change);
  return { added, change };
}

function linkRow(note: Note, links: string[], refused?: string): GardenerRow {
  return {
    note: note.path,
    action: links.length ? 'linked' : 'kept',
    stage: 'tend',
    ...(links.length ? { links } : {}),
    ...(refused ? { reason: refused } : {}),
  };
}

/** Keep a note and link it with the related notes found for it, both ways. */
async function link(pass: Pass, note: Note, targets: LinkTarget[], refused?: string): Promise<void> {
  if (pass.o.dryRun)
    return report(
      pass,
      linkRow(
        note,
        addRelated(note, targets, pass.o.linkStyle).added.map((t) => t.path),
        refused,
      ),
    );
  const { added, change } = await addRelatedLocked(pass, note.path, targets);
  // What was judged is tended; a change someone made meanwhile keeps the note due.
  pass.record.markTended(note.path, change?.before === note.raw ? change.after : note.raw);
  for (const t of added) await addRelatedLocked(pass, t.path, [linkTarget(note)]);
  report(
    pass,
    linkRow(
      note,
      added.map((t) => t.path),
      refused,
    ),
  );
}

/**
 * Fold a duplicate into the note it repeats: its text (without its title) is appended to the
 * target as a merge fragment, its Related links join the target's, it is archived marked
 * `superseded_by` the target, and links to it are pointed at the target.
 */
async function fold(pass: Pass, dup: Note, target: Note): Promise<void> {
  const { root, o, record } = pass;
  if (o.dryRun) return report(pass, { note: dup.path, action: 'merged', stage: 'tend', target: target.path });
  const changed = () => new ZkError('refused', `${dup.path} changed while it was being folded into ${target.path}; it was left in place`);
  if (readNoteFile(root, dup.path)?.raw !== dup.raw) throw changed();
  archiveFolder(root);
  const text = ownText(dup.parsed.body);
  if (text) {
    const date = isoDate(new Date(now()));
    const source = o.source ?? sourceFromAuthor(dup.author);
    const merged = await appendFragment(root, target.path, text, { source, date });
    // The fragment as appendFragment wrote it: in the note's own line ends.
    const piece = mergeFragment(date, text, defaultSource(source), merged.parsed.eol);
    if (merged.raw.endsWith(piece)) record.ownEdit({ path: target.path, before: merged.raw.slice(0, -piece.length), after: merged.raw });
  }
  await addRelatedLocked(
    pass,
    target.path,
    relatedTargets(dup).filter((t) => t.path !== dup.path),
  );
  const archived = await withCorpusLock(root, (lock) => {
    const fresh = readNoteFile(root, dup.path);
    if (!fresh || fresh.raw !== dup.raw) return undefined;
    const dest = archiveReplaced(root, dup, target.uuid, lock);
    trace(root, 'archive', { path: dup.path, archived: dest, superseded_by: target.uuid || null });
    return dest;
  });
  if (!archived) throw changed();
  record.forget(dup.path);
  const current = readNoteFile(root, target.path) ?? target;
  for (const c of await repointInbound(root, { path: dup.path, uuid: dup.uuid, title: dup.title }, current)) record.ownEdit(c);
  report(pass, { note: dup.path, action: 'merged', stage: 'tend', target: target.path });
}
