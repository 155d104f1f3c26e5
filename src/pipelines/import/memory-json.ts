import path from 'node:path';
import { corpusNotes, LinkResolver, splitFragments } from './corpus-notes.js';
import { isObject, jsonLines, readInputFile, text } from './source.js';
import type { ImportFailure, NoteItem, ReadInput } from './items.js';

// The knowledge graph of the MCP reference memory server (modelcontextprotocol/servers,
// src/memory): a JSON Lines file of `{"type":"entity","name","entityType","observations":[…]}`
// and `{"type":"relation","from","to","relationType"}` lines. An entity's name is its identity.

/**
 * One note per entity: titled by its name, its observations as paragraphs, its entity type in
 * frontmatter, and each relation from it a link under `## Relations` labelled with the relation's
 * type. A relation may name an entity later in the file; one to an entity the file lacks fails.
 */
export function readMemoryJson(file: string): ReadInput {
  const { lines, failed } = jsonLines(readInputFile(file), file);
  const name = path.basename(file);
  const entities = new Map<string, NoteItem>();
  const relations: { line: number; from: string; to: string; type: string }[] = [];
  for (const { line, value } of lines) {
    const label = `${name}:${line}`;
    const why = (reason: string): void => void failed.push({ item: label, reason } satisfies ImportFailure);
    if (!isObject(value) || (value.type !== 'entity' && value.type !== 'relation')) {
      why('not an entity or relation line (no "type": "entity" or "relation")');
      continue;
    }
    if (value.type === 'relation') {
      const [from, to, type] = [text(value.from), text(value.to), text(value.relationType)];
      if (!from || !to || !type) {
        why('a relation needs "from", "to" and "relationType"');
        continue;
      }
      relations.push({ line, from, to, type });
      continue;
    }
    const entityName = text(value.name);
    if (!entityName) {
      why('an entity with no name');
      continue;
    }
    const observations = Array.isArray(value.observations) ? value.observations : [];
    if (!observations.every((o) => typeof o === 'string')) {
      why(`entity ${JSON.stringify(entityName)}: observations must be strings`);
      continue;
    }
    if (entities.has(entityName)) {
      why(`entity ${JSON.stringify(entityName)} appears twice (first at ${entities.get(entityName)!.label})`);
      continue;
    }
    const entityType = text(value.entityType);
    entities.set(entityName, {
      type: 'note',
      id: entityName,
      label: `${label} (entity ${JSON.stringify(entityName)})`,
      title: entityName,
      body: (observations as string[])
        .map((o) => o.trim())
        .filter(Boolean)
        .join('\n\n'),
      extra: entityType ? { entity_type: entityType } : undefined,
      links: [],
    });
  }
  for (const r of relations) {
    const from = entities.get(r.from);
    const missing = !from ? r.from : !entities.has(r.to) ? r.to : undefined;
    if (missing) {
      failed.push({
        item: `${name}:${r.line}`,
        reason: `relation ${JSON.stringify(r.type)} names an entity the file does not have: ${JSON.stringify(missing)}`,
      });
      continue;
    }
    if (!from!.links!.some((l) => l.to === r.to && l.label === r.type)) from!.links!.push({ label: r.type, to: r.to });
  }
  return { items: [...entities.values()], failed };
}

/** The heading the import lists an entity's relations under: not an observation when exported. */
const RELATIONS = /^## Relations[ \t]*$/m;

/**
 * The live notes as a knowledge graph the reference memory server reads: an entity per note
 * (named by its title, or title and file name when titles clash), its paragraphs and fragments as
 * observations, and a relation per link to another live note, typed by the link's label.
 */
export function exportMemoryJson(root: string): { lines: string[]; entities: number; relations: number } {
  const all = corpusNotes(root);
  const live = all.filter((n) => !n.archived && !n.note.superseded_by).map((n) => n.note);
  const resolver = new LinkResolver(all);
  const titles = new Map<string, number>();
  for (const n of live) titles.set(n.title, (titles.get(n.title) ?? 0) + 1);
  const nameOf = new Map(live.map((n) => [n.path, titles.get(n.title)! > 1 ? `${n.title} (${n.slug})` : n.title]));
  const entities: string[] = [];
  const relations: string[] = [];
  for (const n of live) {
    const { text: own, fragments } = splitFragments(n.parsed.body);
    const withoutHeading = own.replace(/^#[ \t]+.*(?:\r?\n|$)/, '');
    const relationsAt = RELATIONS.exec(withoutHeading);
    const paragraphs = [relationsAt ? withoutHeading.slice(0, relationsAt.index) : withoutHeading, ...fragments.map((f) => f.text)]
      .flatMap((t) => t.split(/\r?\n[ \t]*\r?\n/))
      .map((p) => p.trim())
      .filter(Boolean);
    entities.push(
      JSON.stringify({
        type: 'entity',
        name: nameOf.get(n.path),
        entityType: stringKey(n.parsed.frontmatter.entity_type) ?? n.kind ?? 'note',
        observations: paragraphs,
      }),
    );
    const seen = new Set<string>();
    for (const l of resolver.links(n)) {
      const to = l.path && nameOf.get(l.path);
      const type = l.label.trim() || 'links to';
      if (!to || to === nameOf.get(n.path) || seen.has(`${to}\u0000${type}`)) continue;
      seen.add(`${to}\u0000${type}`);
      relations.push(JSON.stringify({ type: 'relation', from: nameOf.get(n.path), to, relationType: type }));
    }
  }
  return { lines: [...entities, ...relations], entities: entities.length, relations: relations.length };
}

function stringKey(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}
