import path from 'node:path';
import { corpusNotes, LinkResolver, splitFragments } from './corpus-notes.js';
import { isObject, jsonLines, readInputFile } from './source.js';
import type { ImportFailure, ImportItem, ReadInput } from './items.js';

// The tool's own export: one JSON object per note file, carrying the file's exact text (`raw`), so
// reading it back into an empty corpus makes the same files byte for byte. The other fields say
// what the note is for a reader that does not parse Markdown.

/** One note of a corpus as a JSON object (docs/import-export.md#jsonl). */
export function exportJsonl(root: string): { lines: string[]; notes: number } {
  const notes = corpusNotes(root);
  const resolver = new LinkResolver(notes);
  const lines = notes.map(({ note, archived }) => {
    const { text, fragments } = splitFragments(note.parsed.body);
    return JSON.stringify({
      path: archived ? `.archive/${note.path}` : note.path,
      uuid: note.uuid || null,
      title: note.title,
      kind: note.kind,
      date: note.date || null,
      author: note.author,
      frontmatter: note.parsed.frontmatter,
      body: text,
      fragments,
      links: resolver.links(note),
      supersedes: note.supersedes,
      superseded_by: note.superseded_by,
      archived,
      raw: note.raw,
    });
  });
  return { lines, notes: lines.length };
}

/** The notes of a jsonl export, each to be created as it was (its name, its bytes, archived or not). */
export function readJsonl(file: string): ReadInput {
  const { lines, failed } = jsonLines(readInputFile(file), file);
  const items: ImportItem[] = [];
  const name = path.basename(file);
  for (const { line, value } of lines) {
    const label = `${name}:${line}`;
    const why = (reason: string): void => void failed.push({ item: label, reason } satisfies ImportFailure);
    if (!isObject(value)) {
      why('not an object');
      continue;
    }
    const { path: notePath, raw } = value;
    if (typeof notePath !== 'string' || typeof raw !== 'string') {
      why('no "path" and "raw" text: not a zk-memory jsonl export');
      continue;
    }
    const archived = notePath.startsWith('.archive/');
    const noteName = archived ? notePath.slice('.archive/'.length) : notePath;
    const uuid = typeof value.uuid === 'string' && value.uuid ? value.uuid.toLowerCase() : undefined;
    items.push({
      type: 'verbatim',
      id: `${archived ? 'archived:' : ''}${uuid ?? noteName}`,
      label: `${label} (${notePath})`,
      name: noteName,
      text: raw,
      archived,
    });
  }
  return { items, failed };
}
