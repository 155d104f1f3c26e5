import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { listNoteFiles } from '../../corpus/files/note-files.js';
import { sidecar } from '../../corpus/files/paths.js';
import { renderNote, parseNoteText } from '../../corpus/note/format.js';
import { checkKind } from '../../corpus/note/kinds.js';
import { readNoteFile, type Note } from '../../corpus/note/notes.js';
import { NoteNames, undatedSlug, type Named } from '../../corpus/markdown/note-names.js';
import { isoDate, stemFor, titleSlug } from '../../corpus/note/slug.js';
import { createNoteAs } from '../../corpus/ops/create-as.js';
import { maxBodyBytes } from '../../corpus/ops/limits.js';
import { appendFragment } from '../../corpus/ops/merge.js';
import { trace } from '../../corpus/trace/trace.js';
import { withCaretakerLease } from '../../corpus/lock/lease.js';
import type { ConversationItem, ImportFailure, ImportItem, NoteItem, PlacedNotes, ReadInput, VerbatimItem } from './items.js';
import { queuedBefore, recordQueued } from './ledger.js';
import { spool } from '../inbox.js';

// The steps every import shares, whatever the format: find what earlier imports made, name the new
// notes, then write each item whole (one exclusive create, or one merge) or not at all. A killed
// import leaves every item either written or not; run again, it finds the written ones by where
// they came from and skips them, so nothing is doubled.

/** The frontmatter key that says where an imported note came from: `{format, id}`. */
export const IMPORTED_FROM = 'imported_from';

export interface ImportOptions {
  dryRun?: boolean;
  /** Told after each item: how many are done, of how many. */
  progress?: (done: number, total: number) => void;
}

export interface ImportReport {
  format: string;
  dry_run: boolean;
  created: number;
  merged: number;
  queued: number;
  skipped: number;
  failed: ImportFailure[];
  /** Files of a folder that are not notes, listed, not copied (folder formats only). */
  attachments?: string[];
}

/** The notes of the corpus (and of its archive) an import may meet again, read once. */
interface Existing {
  byOrigin: Map<string, Note>;
  /** Live notes by uuid. */
  byUuid: Map<string, Note>;
  names: Set<string>;
  archivedNames: Set<string>;
  /** Undated slugs and stems in use: a new note takes a slug none of them has. */
  slugs: Set<string>;
  /** The notes no item of this import made: a wikilink's name may fit them too. */
  others: Named[];
  /** Inputs of this format queued in the inbox by earlier imports (see ledger.ts). */
  queued: Set<string>;
}

function originKey(format: string, id: string): string {
  return `${format}\u0000${id}`;
}

/** The file names taken in `.archive/`. */
function archivedNames(root: string): string[] {
  try {
    return fs.readdirSync(sidecar(root).archive);
  } catch {
    return [];
  }
}

function existingNotes(root: string, format: string): Existing {
  const ex: Existing = {
    byOrigin: new Map(),
    byUuid: new Map(),
    names: new Set(),
    archivedNames: new Set(),
    slugs: new Set(),
    others: [],
    queued: queuedBefore(root),
  };
  for (const name of listNoteFiles(root)) {
    ex.names.add(name);
    ex.slugs.add(undatedSlug(name) ?? name.replace(/\.md$/, ''));
    const n = readNoteFile(root, name);
    if (!n) continue;
    const from = n.parsed.frontmatter[IMPORTED_FROM] as { format?: unknown; id?: unknown } | undefined;
    if (from && typeof from === 'object' && from.format === format && from.id !== undefined) ex.byOrigin.set(originKey(format, String(from.id)), n);
    else ex.others.push({ path: n.path, title: n.title, superseded_by: n.superseded_by });
    if (n.uuid) ex.byUuid.set(n.uuid.toLowerCase(), n);
  }
  for (const name of archivedNames(root)) ex.archivedNames.add(name);
  return ex;
}

/**
 * The first free slug for a title among those in use (and those this import took): `x`, `x-2`, …,
 * the rule `write --unique` follows, decided here from the names read once: asking the folder for
 * each of 10,000 names, as one write does, would read it 10,000 times.
 */
function freeSlug(ex: Existing, title: string): string {
  const base = titleSlug(title) || 'note';
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!ex.slugs.has(slug)) {
      ex.slugs.add(slug);
      return slug;
    }
  }
}

/** Where a note item goes: the note an earlier import made of it, or a name and uuid of its own. */
type Placement = { note: Note } | { name: string; uuid: string; date: string; title: string };

function linkLine(label: string, to: Placement): string {
  const [name, uuid] = 'note' in to ? [to.note.path, to.note.uuid] : [to.name, to.uuid];
  const target = /[\s()<>]/.test(name) ? `<${name}>` : name;
  // One line whatever the label holds: line breaks become spaces, brackets are escaped.
  const text = label
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/([\\[\]])/g, '\\$1');
  return `- [${text}](${target})${uuid ? ` <!-- uuid: ${uuid} -->` : ''}`;
}

/** Where the notes went, as a body that links to other items asks (see PlacedNotes). */
function placedNotes(placed: Map<string, Placement>, ex: Existing): PlacedNotes {
  let names: NoteNames<Named & { id?: string }> | undefined;
  const nameOf = (at: Placement) => ('note' in at ? at.note.path : at.name);
  return {
    name: (id) => {
      const at = placed.get(id);
      return at && nameOf(at);
    },
    names: (target, id) => {
      names ??= new NoteNames([
        ...ex.others,
        ...[...placed].map(([pid, at]) => ({ id: pid, path: nameOf(at), title: 'note' in at ? at.note.title : at.title, superseded_by: null })),
      ]);
      return names.resolve(target).note?.id === id;
    },
  };
}

/** A note item's text below its heading: its body, then its links under `## Relations`. */
function bodyOf(item: NoteItem, placed: Map<string, Placement>, notes: PlacedNotes, failed: ImportFailure[]): string {
  const lines: string[] = [];
  for (const l of item.links ?? []) {
    const to = placed.get(l.to);
    if (to) lines.push(linkLine(l.label, to));
    else failed.push({ item: `${item.label}: relation ${JSON.stringify(l.label)} to ${JSON.stringify(l.to)}`, reason: 'no such item in the input' });
  }
  const relations = lines.length ? `## Relations\n\n${lines.join('\n')}` : '';
  const body = typeof item.body === 'string' ? item.body : item.body(notes);
  return [body.trim(), relations].filter(Boolean).join('\n\n');
}

/** The lines of `text` (trimmed, not blank) that the note does not hold yet: what a changed item adds. */
function newLines(note: Note, text: string): string {
  const have = new Set(note.raw.split(/\r?\n/).map((l) => l.trim()));
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() && !have.has(l.trim()))
    .join('\n');
}

/**
 * Import the items a reader made of the input into the corpus, each whole or not at all (several
 * at once; the report lists them in input order): an item an earlier import made is skipped, or,
 * when it changed, what it adds is merged into its note as a fragment (never overwriting).
 * Nothing is written with dryRun.
 */
export async function runImport(root: string, format: string, input: ReadInput, o: ImportOptions = {}): Promise<ImportReport> {
  const report: ImportReport = {
    format,
    dry_run: Boolean(o.dryRun),
    created: 0,
    merged: 0,
    queued: 0,
    skipped: 0,
    failed: [...input.failed],
    ...(input.attachments ? { attachments: input.attachments } : {}),
  };
  if (!input.items.length && input.failed.length) {
    const first = input.failed[0];
    const more = input.failed.length > 1 ? ` (and ${input.failed.length - 1} more)` : '';
    throw new ZkError('usage', `${first.item}: ${first.reason}; nothing could be read${more}`);
  }
  // One import at a time: two of the same input side by side would each find the other's notes
  // missing and make them twice. The caretaker lease says who holds it; a dead holder's is taken over.
  if (o.dryRun) return importItems(root, format, input, report, o);
  return withCaretakerLease(root, `import ${format}`, () => importItems(root, format, input, report, o));
}

async function importItems(root: string, format: string, input: ReadInput, report: ImportReport, o: ImportOptions): Promise<ImportReport> {
  const ex = existingNotes(root, format);
  const today = isoDate(new Date(now()));
  // Every note item is placed before any is written, so a link to an item later in the input
  // already knows the file name and uuid it leads to.
  const placed = new Map<string, Placement>();
  const seen = new Map<string, string>();
  const items: ImportItem[] = [];
  for (const item of input.items) {
    const first = seen.get(item.id);
    if (first !== undefined) {
      report.failed.push({ item: item.label, reason: `the same item as ${first}` });
      continue;
    }
    seen.set(item.id, item.label);
    items.push(item);
    if (item.type !== 'note') continue;
    const earlier = ex.byOrigin.get(originKey(format, item.id));
    if (earlier) placed.set(item.id, { note: earlier });
    else {
      const date = item.date ?? today;
      placed.set(item.id, {
        name: `${stemFor(date, freeSlug(ex, item.title))}.md`,
        uuid: item.uuid && !ex.byUuid.has(item.uuid) ? item.uuid : crypto.randomUUID(),
        date,
        title: item.title,
      });
    }
  }
  const outcomes: { action?: Action; failed: ImportFailure[] }[] = items.map(() => ({ failed: [] }));
  const ctx: Step = { root, format, placed, notes: placedNotes(placed, ex), ex, o, serial: serially() };
  let done = 0;
  await inPool(items.length, WRITERS_AT_ONCE, async (i) => {
    const item = items[i];
    try {
      outcomes[i].action =
        item.type === 'note'
          ? await importNote(ctx, item, outcomes[i].failed)
          : item.type === 'verbatim'
            ? await importVerbatim(ctx, item)
            : await importConversation(ctx, item);
    } catch (err) {
      // A refusal belongs to this item; a busy corpus, a full disk or an I/O error stops the import.
      if (!(err instanceof ZkError) || !ITEM_REFUSALS.has(err.code)) throw err;
      outcomes[i].failed.push({ item: item.label, reason: err.message });
    }
    o.progress?.(++done, items.length);
  });
  for (const r of outcomes) {
    if (r.action) report[r.action]++;
    report.failed.push(...r.failed);
  }
  if (!o.dryRun) trace(root, 'import', { format, created: report.created, merged: report.merged, skipped: report.skipped, failed: report.failed.length });
  return report;
}

/** Errors that refuse one item; any other (a busy corpus, a full disk, an I/O error) stops the import. */
const ITEM_REFUSALS = new Set<string>(['usage', 'exists', 'invalid_slug', 'refused', 'not_found', 'ambiguous_ref']);

/** How many items are written at once: their files' flushes to disk overlap (about 10x faster than one by one). */
const WRITERS_AT_ONCE = 16;

/**
 * Run `fn` for 0..count-1, `width` at a time. The first error stops every worker from taking
 * another index and is thrown once those running have finished, so nothing is written after it.
 */
async function inPool(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let stopped: { err: unknown } | undefined;
  const worker = async () => {
    while (!stopped && next < count) {
      const i = next++;
      try {
        await fn(i);
      } catch (err) {
        stopped ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  if (stopped) throw stopped.err;
}

/** Runs the functions given one after another (merges take the corpus lock: they queue here instead). */
function serially(): <T>(fn: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = last.then(fn, fn);
    last = run.catch(() => undefined);
    return run;
  };
}

/** What writing one item needs to know. */
interface Step {
  root: string;
  format: string;
  placed: Map<string, Placement>;
  notes: PlacedNotes;
  ex: Existing;
  o: ImportOptions;
  serial: <T>(fn: () => Promise<T>) => Promise<T>;
}

type Action = 'created' | 'merged' | 'skipped' | 'queued';

/** The frontmatter keys an imported note gets from the import, never from the source's own frontmatter. */
const SET_BY_IMPORT = new Set(['uuid', 'title', 'date', 'author', 'kind', IMPORTED_FROM]);

/**
 * A conversation left in the inbox as one `retain` input, for `retain --drain` to distill with an
 * LLM; recorded, so a re-import skips it even after the inbox was drained.
 */
async function importConversation({ root, format, ex, o, serial }: Step, item: ConversationItem): Promise<Action> {
  const key = originKey(format, item.id);
  if (ex.queued.has(key)) return 'skipped';
  ex.queued.add(key);
  const limit = maxBodyBytes();
  const bytes = Buffer.byteLength(item.transcript);
  if (bytes > limit) throw new ZkError('usage', `${bytes} bytes, over the ${limit} an input may have (ZK_MEMORY_MAX_BODY)`);
  if (o.dryRun) return 'queued';
  await serial(async () => {
    const file = spool(root, [{ type: 'text', text: item.transcript }], {
      source: item.source,
      reason: `imported from ${format}: waits for an LLM to distill it (retain --drain)`,
    });
    recordQueued(root, format, item.id, file);
  });
  return 'queued';
}

async function importNote({ root, format, placed, notes, o, serial }: Step, item: NoteItem, failed: ImportFailure[]): Promise<Action> {
  const at = placed.get(item.id)!;
  const body = bodyOf(item, placed, notes, failed);
  if ('note' in at) {
    const added = newLines(at.note, body);
    if (!added) return 'skipped';
    if (!o.dryRun) await serial(() => appendFragment(root, at.note.path, added, { source: item.author ?? format }));
    return 'merged';
  }
  const kind = checkKind(item.kind);
  // The source's keys follow; one the note sets itself is not written twice, nor may it say where the note came from.
  const kept = Object.entries(item.extra ?? {}).filter(([k]) => !SET_BY_IMPORT.has(k));
  const extra = { [IMPORTED_FROM]: { format, id: item.id }, ...Object.fromEntries(kept) };
  const text = renderNote({ uuid: at.uuid, title: item.title.replace(/\s+/g, ' ').trim(), date: at.date, author: item.author, kind, extra }, body);
  if (!o.dryRun) await createNoteAs(root, at.name, text);
  return 'created';
}

/**
 * A note brought back as it was exported. A live note with its uuid (or, without one, its name)
 * is the same note: skipped, or given what the export adds as a fragment. An archived note whose
 * name `.archive/` holds is skipped: archived notes are never changed.
 */
async function importVerbatim({ root, ex, o, serial }: Step, item: VerbatimItem): Promise<Action> {
  if (item.archived) {
    if (ex.archivedNames.has(item.name)) return 'skipped';
    ex.archivedNames.add(item.name);
    if (!o.dryRun) await createNoteAs(root, item.name, item.text, { archived: true });
    return 'created';
  }
  const uuid = parseNoteText(item.text).frontmatter.uuid;
  const earlier = typeof uuid === 'string' && uuid ? ex.byUuid.get(uuid.toLowerCase()) : ex.names.has(item.name) ? readNoteFile(root, item.name) : undefined;
  if (earlier) {
    if (earlier.raw === item.text) return 'skipped';
    const added = newLines(earlier, parseNoteText(item.text).body);
    if (!added) return 'skipped';
    if (!o.dryRun) await serial(() => appendFragment(root, earlier.path, added, { source: 'jsonl' }));
    return 'merged';
  }
  if (ex.names.has(item.name)) throw new ZkError('exists', `${item.name} is another note's name in this corpus`);
  ex.names.add(item.name);
  if (!o.dryRun) await createNoteAs(root, item.name, item.text);
  return 'created';
}
