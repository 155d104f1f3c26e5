import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { git } from '../adapters/git.js';
import { stageText, type Unmerged } from '../adapters/git-sync.js';
import { writeTemp } from '../corpus/files/files.js';
import { notesWithSlug } from '../corpus/graph/refs.js';
import { candidateFiles } from '../corpus/graph/grep.js';
import { mergeNoteTexts, uuidOfText as uuidOf } from '../corpus/note/merge3.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { applyEdits } from '../corpus/note/text-edits.js';
import { anchoredRepointEdits } from '../tend/repoint.js';
import { crashAt } from '../corpus/ops/fault.js';
import { archiveFolder } from '../corpus/ops/archive.js';

// What git's merge leaves that the driver cannot settle file by file (docs/hosts.md#the-merge-rules):
// two notes created under one name on two hosts, and a note archived on one host while merged
// into on the other. Every file is staged before it is written, so a sync killed here leaves
// nothing that `git merge --abort` does not take back.

/** Where the corpus lies in the repository. */
export interface Place {
  top: string;
  /** The corpus folder from the top: `''` or `notes/`. */
  prefix: string;
  root: string;
}

export interface Renamed {
  from: string;
  to: string;
  uuid: string;
}

export interface Resolution {
  /** Paths (from the corpus root) settled here, and how. */
  resolved: { path: string; how: 'both kept' | 'merged into the archived copy' | 'kept' }[];
  renamed: Renamed[];
  /** Conflicted paths (from the top) left for a person. */
  left: string[];
}

async function run(top: string, args: string[], input?: string): Promise<string> {
  const r = await git(top, args, input);
  if (r.code !== 0) throw new ZkError('io', `git ${args[0]} failed: ${r.stderr.trim().split('\n')[0]}`);
  return r.stdout;
}

/** Stage `text` as the path's content, then write it to the work tree. */
async function putFile(p: Place, rel: string, text: string): Promise<void> {
  const blob = (await run(p.top, ['hash-object', '-w', '--stdin'], text)).trim();
  await run(p.top, ['update-index', '--add', '--cacheinfo', `100644,${blob},${rel}`]);
  const file = path.join(p.top, rel);
  fs.renameSync(writeTemp(file, text), file);
}

/** Stage the path's removal, then remove it from the work tree. */
async function dropFile(p: Place, rel: string): Promise<void> {
  await run(p.top, ['update-index', '--force-remove', '--', rel]);
  fs.rmSync(path.join(p.top, rel), { force: true });
}

/** The first free numbered name for a note under `name` (`20261202-judy-2.md`), as `write --unique` takes one. */
function numberedName(root: string, name: string): string {
  const m = /^(\d{8})-(.+)\.md$/.exec(name);
  const stem = name.replace(/\.md$/i, '');
  for (let n = 2; ; n++) {
    const candidate = m ? `${m[1]}-${m[2]}-${n}.md` : `${stem}-${n}.md`;
    const slugFree = !m || notesWithSlug(root, `${m[2]}-${n}`, { listed: true }).length === 0;
    if (slugFree && !fs.existsSync(path.join(root, candidate))) return candidate;
  }
}

/** The archived copy of a note (same name, or a numbered one, holding its uuid). */
function archivedCopy(root: string, name: string, uuid: string): string | undefined {
  const stem = name.replace(/\.md$/i, '');
  // What is merged into the copy goes where `archive` moves notes: never through a planted symlink.
  const names = fs.readdirSync(archiveFolder(root));
  return names
    .filter((n) => n === name || (n.startsWith(`${stem}-`) && /^-\d+\.md$/.test(n.slice(stem.length))))
    .sort()
    .find((n) => uuidOf(fs.readFileSync(path.join(root, '.archive', n), 'utf8')) === uuid);
}

/** Settle what can be settled of the conflicted paths; the rest is left for a person. */
export async function resolveStructural(p: Place, unmerged: Unmerged[]): Promise<Resolution> {
  const out: Resolution = { resolved: [], renamed: [], left: [] };
  for (const u of unmerged) {
    const rel = u.path.startsWith(p.prefix) ? u.path.slice(p.prefix.length) : undefined;
    const isNote = rel !== undefined && !rel.includes('/') && /\.md$/i.test(rel);
    const { stages } = u;
    if (isNote && !stages.has(1) && stages.has(2) && stages.has(3)) {
      const [ours, theirs] = [await stageText(p.top, 2, u.path), await stageText(p.top, 3, u.path)];
      const [uo, ut] = [uuidOf(ours), uuidOf(theirs)];
      if (uo && ut && uo !== ut) {
        // The smaller uuid keeps the name, so every host renames the same note.
        const [keep, move, moved] = uo < ut ? [ours, theirs, ut] : [theirs, ours, uo];
        const to = numberedName(p.root, rel);
        await putFile(p, u.path, keep);
        crashAt('sync-mid-resolve');
        await putFile(p, p.prefix + to, move);
        out.renamed.push({ from: rel, to, uuid: moved });
        out.resolved.push({ path: rel, how: 'both kept' });
        continue;
      }
    }
    if (isNote && stages.has(1) && stages.has(2) !== stages.has(3)) {
      const base = await stageText(p.top, 1, u.path);
      const modified = await stageText(p.top, stages.has(2) ? 2 : 3, u.path);
      const copy = archivedCopy(p.root, rel, uuidOf(base) || uuidOf(modified));
      if (copy) {
        const merged = mergeNoteTexts(base, fs.readFileSync(path.join(p.root, '.archive', copy), 'utf8'), modified);
        if (merged.kind === 'clean') {
          await putFile(p, `${p.prefix}.archive/${copy}`, merged.text);
          await dropFile(p, u.path);
          out.resolved.push({ path: rel, how: 'merged into the archived copy' });
          continue;
        }
      } else {
        // Deleted by hand on one side, changed on the other: nothing is lost, the changed note stays.
        await putFile(p, u.path, modified);
        out.resolved.push({ path: rel, how: 'kept' });
        continue;
      }
    }
    out.left.push(u.path);
  }
  await repointRenamed(p, out);
  return out;
}

/** Links written to a renamed note by its uuid follow it to its new name. */
async function repointRenamed(p: Place, r: Resolution): Promise<void> {
  const left = new Set(r.left);
  for (const m of r.renamed) {
    const to = readNoteFile(p.root, m.to);
    if (!to) continue;
    for (const name of candidateFiles(p.root, [m.uuid], { fixed: true })) {
      if (left.has(p.prefix + name)) continue;
      const note = readNoteFile(p.root, name);
      const edits = note ? anchoredRepointEdits(note, m.uuid, m.from, to) : [];
      if (note && edits.length) await putFile(p, p.prefix + name, applyEdits(note.raw, edits));
    }
  }
}
