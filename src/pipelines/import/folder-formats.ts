import path from 'node:path';
import { readFolder } from './folder.js';
import { noteItemOf, SourceNames, sourceNote, type SourceNote } from './vault.js';
import type { NoteItem, ReadInput } from './items.js';

// The folder formats: each file of the folder a note (flat names, frontmatter kept, links kept
// leading where they led), with what each tool's folder has of its own.

/**
 * An Obsidian vault or a basic-memory project: every Markdown file below the folder one note,
 * titled by its frontmatter's `title` (basic-memory writes one), else its file name (Obsidian's
 * title). Attachments are listed, not copied.
 */
export function readVault(dir: string): ReadInput {
  const folder = readFolder(dir);
  const notes = folder.files.map((f) => sourceNote(f));
  const names = new SourceNames(notes);
  return { items: notes.map((n) => noteItemOf(n, names)), failed: folder.failed, attachments: folder.attachments };
}

/** A line of Claude Code's MEMORY.md that only points at a topic file: `- [Title](file.md) — hook`. */
const POINTER = /^\s*[-*+]\s+\[[^\]]*\]\(([^)\s]+)\)/;

/**
 * A Claude Code memory folder (`~/.claude/projects/<project>/memory/`): each topic file one note,
 * titled by its frontmatter's `name` (its `description` and `type` kept); `MEMORY.md`, the index
 * Claude Code loads, points at them, and its lines that do not (loose notes written straight into
 * the index) become one note of their own.
 */
export function readClaudeCode(dir: string): ReadInput {
  const folder = readFolder(dir);
  const index = folder.files.find((f) => f.rel === 'MEMORY.md');
  const topics = folder.files.filter((f) => f !== index).map((f) => sourceNote(f, { titleKey: 'name', heading: true }));
  const names = new SourceNames(topics);
  const items: NoteItem[] = topics.map((n) => noteItemOf(n, names, { drop: ['name'] }));
  if (index) {
    const loose = index.text.split(/\r?\n/).filter((line) => {
      const pointer = POINTER.exec(line);
      return !(pointer && names.resolve(decodeURIComponent(pointer[1]), 'MEMORY.md'));
    });
    const body = loose
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    // Headings alone are the index's layout, not memory.
    if (body.split('\n').some((l) => l.trim() && !/^#{1,6}\s/.test(l))) {
      const n: SourceNote = { id: 'MEMORY.md', file: { ...index, text: body }, title: 'Claude Code memory index', aliases: [], frontmatter: {}, body };
      items.push(noteItemOf(n, names));
    }
  }
  return { items, failed: folder.failed, attachments: folder.attachments };
}

/** Codex's MEMORY.md: blocks, each a YAML header (`rollout_summary_files`, `description`, `keywords`) and bullets. */
const CODEX_BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*\r?\n([\s\S]*?)(?=^---[ \t]*\r?\n|(?![\s\S]))/gm;

/**
 * Codex's memories folder (`~/.codex/memories/`, as its consolidation writes it): `memory_summary.md`
 * one note; each block of `MEMORY.md` one note, titled by its `description`, its keywords and
 * rollout summaries kept; each `rollout_summaries/*.md` and each `skills/<name>/SKILL.md` one note.
 * `raw_memories.md` is Codex's scratch input to that consolidation and is not read.
 */
export function readCodex(dir: string): ReadInput {
  const folder = readFolder(dir);
  const wanted = folder.files.filter(
    (f) => f.rel === 'memory_summary.md' || /^rollout_summaries\/[^/]+\.md$/.test(f.rel) || /^skills\/[^/]+\/SKILL\.md$/.test(f.rel),
  );
  const notes: SourceNote[] = wanted.map((f) => {
    const n = sourceNote(f, { titleKey: 'name', heading: true });
    if (f.rel === 'memory_summary.md') return { ...n, title: 'Codex memory summary' };
    const skill = /^skills\/([^/]+)\//.exec(f.rel);
    return skill ? { ...n, title: `Skill: ${typeof n.frontmatter.name === 'string' ? n.frontmatter.name : skill[1]}` } : n;
  });
  const handbook = folder.files.find((f) => f.rel === 'MEMORY.md');
  if (handbook) {
    let i = 0;
    for (const m of handbook.text.matchAll(CODEX_BLOCK)) {
      i++;
      const n = sourceNote({ ...handbook, rel: `MEMORY.md#${i}`, text: `---\n${m[1]}\n---\n${m[2]}` }, { titleKey: 'description' });
      if (n.title === `MEMORY.md#${i}`) n.title = `Codex memory ${i}`;
      // A block is found again by what it is about, not by where it stands in the file.
      notes.push({ ...n, id: `MEMORY.md: ${n.title}` });
    }
  }
  const names = new SourceNames(notes);
  const attachments = [
    ...folder.attachments,
    ...folder.files.filter((f) => !wanted.includes(f) && f !== handbook && f.rel !== 'raw_memories.md').map((f) => f.rel),
  ];
  return {
    items: notes.map((n) =>
      noteItemOf(n, names, { label: n.id, drop: n.id.startsWith('skills/') ? ['name'] : n.id.startsWith('MEMORY.md') ? ['description'] : [] }),
    ),
    failed: folder.failed,
    attachments: attachments.map((a) => path.posix.normalize(a)),
  };
}
