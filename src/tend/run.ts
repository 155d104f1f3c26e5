import { applyEdits, type TextEdit } from '../corpus/note/text-edits.js';
import { withCaretakerLease } from '../corpus/lock/lease.js';
import { loadNotes, type Note } from '../corpus/note/notes.js';
import { rewriteNoteLocked } from '../corpus/ops/rewrite.js';
import { trace } from '../corpus/trace/trace.js';
import { warn } from '../corpus/warn.js';
import { checkNote, countVerdicts, type Finding } from './check.js';
import { CorpusMap, LiveNotes } from './corpus-map.js';
import { keptFactsBuilt, loadNoteFacts, noteFacts, type AnswerOf, type NoteFacts } from '../corpus/graph/facts.js';
import { linkEdits } from './edits.js';
import { mintNote } from './mint.js';
import { gitignoreFindings } from './sidecar-check.js';
import { completeSupersession, unansweredSupersessions } from './supersession.js';
import { impossibleValidity } from './validity.js';
import { unreadDateFindings } from './dates.js';
import { forkFindings, forks } from './forks.js';
import { sameSlugFindings } from './same-slug.js';

import type { TendAction } from './actions.js';

export { TEND_ACTIONS, type TendAction } from './actions.js';

/** The outcome of a tend run (docs/cli.md#tend), plus what was actually changed. */
export interface TendReport {
  action: TendAction;
  write: boolean;
  findings: Finding[];
  counts: Record<string, number>;
  /** Links (or notes, for mint) rewritten; 0 on a dry run. */
  changed: number;
  /** Files rewritten, relative to the root. */
  files: string[];
}

const LINK_VERDICTS = ['ok', 'stale', 'broken', 'unanchored'] as const;

/** What one note contributes to a report, and the edits that would fix what can be fixed. */
interface NotePlan {
  findings: Finding[];
  edits: TextEdit[];
}

/** One parse per note read in this run: the planner and the supersession check share it. */
const parsed = new WeakMap<Note, NoteFacts>();
function factsOf(note: Note): NoteFacts {
  let f = parsed.get(note);
  if (!f) parsed.set(note, (f = noteFacts(note)));
  return f;
}

function corpusMap(root: string, notes: readonly NoteFacts[] | LiveNotes): CorpusMap {
  const map = new CorpusMap(root, notes);
  for (const [uuid, files] of map.duplicateUuids()) warn(`uuid ${uuid} is held by several notes: ${files.join(', ')}`);
  return map;
}

/** What a check finds in the live notes alone, kept by a resident process until a note changes. */
interface LiveFindings {
  live: LiveNotes;
  sameSlug: Finding[];
  /** Every finding of the live notes, around those of `.zk/.gitignore`, once a check needed no archived note. */
  checked?: { before: Finding[]; after: Finding[] };
}

function liveFindings(facts: readonly NoteFacts[], factsOf?: AnswerOf<NoteFacts>): LiveFindings {
  return { live: new LiveNotes(facts, factsOf), sameSlug: sameSlugFindings(facts) };
}

/**
 * Classify every link of the corpus (and check `.zk/.gitignore`, the notes' validity and dates, forked
 * supersessions and undated slugs several current notes bear); changes nothing. Reads only the
 * notes that changed since the last check.
 */
export function tendCheck(root: string): TendReport {
  const kept = keptFactsBuilt(root, 'tend-check', liveFindings);
  const { live, sameSlug } = kept ?? liveFindings(loadNoteFacts(root));
  const notes = live.notes;
  // Made on every check, for its warnings.
  const map = corpusMap(root, live);
  let checked = kept?.checked;
  if (!checked) {
    const before = notes.flatMap((n) => checkNote(n, map).map((f) => f.finding));
    before.push(...unansweredSupersessions(notes, map).map((u) => u.finding), ...impossibleValidity(notes, map), ...unreadDateFindings(notes));
    checked = { before, after: [...forkFindings(forks(notes, map), map), ...sameSlug] };
    // Nothing watches the archive: findings that looked at it are found again next time.
    if (kept && !map.archiveRead) kept.checked = checked;
  }
  const findings = [...checked.before, ...gitignoreFindings(root), ...checked.after];
  return { action: 'check', write: false, findings, counts: countVerdicts(findings, LINK_VERDICTS), changed: 0, files: [] };
}

/** Point stale links at the note that now holds their uuid (or the successor of an archived one). */
export function tendRepair(root: string, o: { write?: boolean } = {}): Promise<TendReport> {
  return fixLinks(root, 'repair', ['stale', 'broken'], Boolean(o.write), completeSupersessions);
}

/** Mend supersessions a crash left half done, or an archived successor stranded (src/tend/supersession.ts). */
async function completeSupersessions(root: string, notes: Note[], write: boolean): Promise<Partial<TendReport>> {
  const facts = notes.map(factsOf);
  const found = unansweredSupersessions(facts, corpusMap(root, facts));
  const files = new Set<string>();
  let changed = 0;
  for (const u of found) {
    const done = write && u.finding.fix ? await completeSupersession(root, u) : [];
    for (const f of done) files.add(f);
    if (done.length) changed++;
  }
  return { findings: found.map((u) => u.finding), files: [...files], changed };
}

/** Give plain links to notes with a uuid the hidden `<!-- uuid: U -->` anchor. */
export function tendRobustify(root: string, o: { write?: boolean } = {}): Promise<TendReport> {
  return fixLinks(root, 'robustify', ['unanchored'], Boolean(o.write));
}

/** Give every note without a uuid a fresh one. */
export function tendMint(root: string, o: { write?: boolean } = {}): Promise<TendReport> {
  return rewriteCorpus(root, 'mint', ['no_uuid', 'broken'], Boolean(o.write), undefined, () => (note) => {
    const m = mintNote(note);
    return m ? { findings: [m.finding], edits: m.edits } : { findings: [], edits: [] };
  });
}

type Extra = (root: string, notes: Note[], write: boolean) => Promise<Partial<TendReport>>;

function fixLinks(root: string, action: TendAction, verdicts: readonly string[], write: boolean, extra?: Extra): Promise<TendReport> {
  return rewriteCorpus(root, action, verdicts, write, extra, (notes) => {
    const map = corpusMap(root, notes.map(factsOf));
    return (note) => {
      const relevant = checkNote(factsOf(note), map).filter((f) => verdicts.includes(f.finding.verdict));
      return { findings: relevant.map((f) => f.finding), edits: relevant.flatMap((f) => linkEdits(note.raw, f)) };
    };
  });
}

/**
 * Plan every note and, with `write`, rewrite the ones with edits: the whole run under the caretaker
 * lease. Planning happens outside the corpus lock; each file is swapped in only if it still holds
 * the bytes it was planned from, else planned again (see rewriteNoteLocked), so a concurrent merge
 * is never lost and the lock is held only for the swap.
 */
async function rewriteCorpus(
  root: string,
  action: TendAction,
  verdicts: readonly string[],
  write: boolean,
  extra: Extra | undefined,
  planner: (notes: Note[]) => (note: Note) => NotePlan,
): Promise<TendReport> {
  const run = async (): Promise<TendReport> => {
    const notes = loadNotes(root);
    const plan = planner(notes);
    const findings: Finding[] = [];
    const files: string[] = [];
    let changed = 0;
    for (const note of notes) {
      let p = plan(note);
      if (write && p.edits.length) {
        let plannedFrom = note.raw;
        const change = await rewriteNoteLocked(root, note.path, (fresh) => {
          if (fresh.raw !== plannedFrom) {
            p = plan(fresh);
            plannedFrom = fresh.raw;
          }
          return p.edits.length ? applyEdits(fresh.raw, p.edits) : undefined;
        });
        if (change) {
          files.push(note.path);
          changed += p.findings.filter((f) => f.fix).length;
        }
      }
      findings.push(...p.findings);
    }
    if (extra) {
      const more = await extra(root, notes, write);
      findings.push(...(more.findings ?? []));
      files.push(...(more.files ?? []).filter((f) => !files.includes(f)));
      changed += more.changed ?? 0;
    }
    if (files.length) trace(root, 'tend', { action, files, changed });
    return { action, write, findings, counts: countVerdicts(findings, verdicts), changed, files };
  };
  return write ? withCaretakerLease(root, `tend ${action}`, run) : run();
}
