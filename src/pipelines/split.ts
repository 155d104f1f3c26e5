import crypto from 'node:crypto';
import path from 'node:path';
import { now } from '../context.js';
import { asZkError, ZkError } from '../errors.js';
import { archiveFolder, archiveReplaced } from '../corpus/ops/archive.js';
import { createFileExclusive, createNoteFile } from '../corpus/files/files.js';
import { decisionBody, renderNote } from '../corpus/note/format.js';
import { withCorpusLock } from '../corpus/lock/lock.js';
import type { HeldLock } from '../corpus/files/held-lock.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { writeNote } from '../corpus/ops/write.js';
import { sourceFromAuthor } from '../corpus/note/source.js';
import { resolveRef } from '../corpus/graph/refs.js';
import { findRelated, formatLink, ownText, type LinkStyle, type LinkTarget } from '../corpus/graph/related.js';
import type { FileChange } from '../corpus/ops/rewrite.js';
import { isoDate } from '../corpus/note/slug.js';
import { trace } from '../corpus/trace/trace.js';
import { warn } from '../corpus/warn.js';
import { candidateNoteName, judgeError, judgeSplit, MAX_SPLIT_FRAGMENTS, type SplitDecision, type SplitFragment } from '../judge/index.js';
import type { StructuredLLM } from '../llm/types.js';
import { repointInbound } from '../tend/repoint.js';

/** The frontmatter key a split child carries: the uuid of the parent it was split from. */
export const SPLIT_FROM = 'split_from';

/** The uuid of the split a note belongs to (its own as a parent, its parent's as a child), each lowercase. */
function splitIds(note: Note): string[] {
  const parent = String(note.parsed.frontmatter[SPLIT_FROM] ?? '')
    .trim()
    .toLowerCase();
  return [note.uuid.toLowerCase(), parent].filter(Boolean);
}

/**
 * The split both notes belong to (the parent's uuid) when they are of one split family: parent
 * and child, or two children of one parent. Undefined otherwise.
 */
export function sharedSplit(a: Note, b: Note): string | undefined {
  if (a.path === b.path) return undefined;
  const mine = new Set(splitIds(a));
  return splitIds(b).find((id) => mine.has(id));
}

/** `--max-fragments` as the judge can honour it: at least 2, at most the schema's cap. */
export function fragmentCap(requested?: number): number {
  if (requested === undefined) return MAX_SPLIT_FRAGMENTS;
  if (!Number.isInteger(requested) || requested < 2) throw new ZkError('usage', `--max-fragments takes a whole number >= 2, not ${requested}`);
  if (requested > MAX_SPLIT_FRAGMENTS) {
    warn(`--max-fragments ${requested} is more than the split judge allows; using ${MAX_SPLIT_FRAGMENTS}`);
    return MAX_SPLIT_FRAGMENTS;
  }
  return requested;
}

export interface SplitOptions {
  llm: StructuredLLM;
  maxFragments?: number;
  /** Author of the children (default: the original note's author). */
  source?: string;
  /** Ask the judge, change nothing and leave no trace. */
  dryRun?: boolean;
  /** How the parent and children link to each other (default Markdown links). */
  linkStyle?: LinkStyle;
}

export interface SplitOutcome {
  action: 'split' | 'not_split';
  /** The note as it was judged. */
  note: Note;
  parent?: Note;
  children: Note[];
  /** Where the original went, relative to the root. */
  archived?: string;
  /** Fragments that could not be written: their text stays in the parent. */
  failed: { title: string; error: string }[];
  /** On a dry run: the fragments the judge proposed. */
  planned?: SplitFragment[];
  /** Notes whose links were pointed from the original to the parent. */
  changes: FileChange[];
}

/** Why a note cannot be split, checked before any LLM call. */
function refuseUnsplittable(note: Note): void {
  if (note.superseded_by) throw new ZkError('refused', `${note.path} is superseded by ${note.superseded_by}; split the note that replaced it`);
  if (note.parsed.yamlError) throw new ZkError('refused', `cannot split ${note.path}: its frontmatter is not valid YAML (fix it first)`);
}

/**
 * De-merge an overgrown note: the split judge proposes a summary parent and at most
 * `maxFragments` children, or says to keep the note whole (`not_split`, nothing changes).
 * Throws ZkError('llm_failed') when the judge cannot answer (`llm_unreachable` when its endpoint
 * cannot be reached), having changed nothing.
 */
export async function splitNote(root: string, ref: string, o: SplitOptions): Promise<SplitOutcome> {
  const note = resolveRef(root, ref);
  refuseUnsplittable(note);
  const max = fragmentCap(o.maxFragments);
  const text = ownText(note.parsed.body);
  const keep = (reason: string): SplitOutcome => {
    if (!o.dryRun) trace(root, 'split', { path: note.path, action: 'not_split', reason });
    return { action: 'not_split', note, children: [], failed: [], changes: [] };
  };
  if (!text) return keep('the note has no text to split');
  const shown = { id: note.uuid || note.slug, title: note.title, body: text, path: note.path };
  const judged = await judgeSplit(o.llm, shown, max, { root: o.dryRun ? undefined : root });
  if (!judged.ok) throw judgeError(judged, `judge whether to split ${note.path}`);
  const d = judged.value;
  if (!d.split) return keep('the judge kept the note whole');
  if (o.dryRun) return { action: 'split', note, children: [], failed: [], planned: d.fragments, changes: [] };
  return applySplit(root, note, d, o.source, o.linkStyle);
}

function writeChild(root: string, f: SplitFragment, parent: LinkTarget, source: string | undefined, lock: HeldLock, style?: LinkStyle): Note {
  const { title, slug } = candidateNoteName({ kind: f.kind, topic: f.title, title: f.title, slug: f.slug, content: f.content });
  const text = f.kind === 'decision' ? decisionBody(f.content, f) : f.content.trim();
  const body = `${text}\n\nPart of ${formatLink(parent, style)}`;
  return writeNote(root, { slug, title, body, kind: f.kind, source, unique: true, extra: { [SPLIT_FROM]: parent.uuid } }, lock);
}

/** The parent's body: the summary, any fragment that could not be written, links to the children, the original's Related section. */
function parentBody(note: Note, summary: string, children: Note[], keptBack: SplitFragment[], style?: LinkStyle): string {
  const blocks = [summary.trim()];
  for (const f of keptBack) blocks.push(`## ${f.title.replace(/\s+/g, ' ').trim()}\n\n${f.content.trim()}`);
  if (children.length) blocks.push(`## Parts\n\n${children.map((c) => `- ${formatLink(c, style)}`).join('\n')}`);
  const related = findRelated(note.raw, note.parsed.bodyOffset);
  if (related) blocks.push(note.raw.slice(related.start, related.end).replace(/\r\n/g, '\n').trim());
  return blocks.join('\n\n');
}

/** Put the parent under the original's exact file name (freed a moment ago, under the lock). */
function createParent(root: string, note: Note, text: string, lock: HeldLock): string {
  if (createFileExclusive(root, path.join(root, note.path), text, lock)) return note.path;
  // Someone took the name in that instant: keep the parent under a free name; anchors still find it.
  return createNoteFile(root, note.slug, text, true, lock);
}

async function applySplit(root: string, note: Note, d: SplitDecision, source: string | undefined, style?: LinkStyle): Promise<SplitOutcome> {
  const parentUuid = crypto.randomUUID();
  const parentLink = { title: note.title, path: note.path, uuid: parentUuid };
  const placed = await withCorpusLock(root, (lock) => {
    const fresh = readNoteFile(root, note.path);
    if (!fresh || fresh.raw !== note.raw) {
      throw new ZkError('busy', `${note.path} changed while the split was being judged; nothing was changed (run split again)`);
    }
    archiveFolder(root);
    const children: Note[] = [];
    const keptBack: SplitFragment[] = [];
    const failed: { title: string; error: string }[] = [];
    for (const f of d.fragments) {
      try {
        children.push(writeChild(root, f, parentLink, source ?? sourceFromAuthor(note.author), lock, style));
      } catch (err) {
        if (err instanceof ZkError && err.code === 'busy') throw err;
        keptBack.push(f);
        failed.push({ title: f.title, error: asZkError(err).message });
      }
    }
    if (!children.length) throw new ZkError('io', `no part of ${note.path} could be written (${failed[0]?.error}); nothing was changed`);
    const archived = archiveReplaced(root, note, parentUuid, lock);
    const text = renderNote(
      {
        uuid: parentUuid,
        title: note.title,
        date: note.date || isoDate(new Date(now())),
        author: note.author ?? undefined,
        kind: note.kind ?? undefined,
        supersedes: note.uuid ? [note.uuid] : undefined,
      },
      parentBody(note, d.parent_summary, children, keptBack, style),
    );
    return { children, failed, archived, parentPath: createParent(root, note, text, lock) };
  });
  const parent = readNoteFile(root, placed.parentPath);
  if (!parent) throw new ZkError('io', `the parent note ${placed.parentPath} vanished right after it was written`);
  const changes = note.uuid
    ? await repointInbound(root, { path: note.path, uuid: note.uuid, title: note.title }, parent, {
        skip: [parent.path, ...placed.children.map((c) => c.path)],
      })
    : [];
  trace(root, 'split', {
    path: note.path,
    action: 'split',
    archived: placed.archived,
    parent: parent.path,
    parent_uuid: parent.uuid,
    children: placed.children.map((c) => c.path),
    failed: placed.failed,
    repointed: changes.map((c) => c.path),
  });
  return { action: 'split', note, parent, children: placed.children, archived: placed.archived, failed: placed.failed, changes };
}
