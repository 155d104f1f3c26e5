import path from 'node:path';
import { capSlug } from '../../corpus/note/slug.js';
import { dayOf, isObject, jsonLines, parseJsonFile, readInputFile, text } from './source.js';
import type { ImportFailure, NoteItem, ReadInput } from './items.js';

// Memories kept by mem0 (`Memory.get_all()` / the platform's `get_all`: `{"results": [{id, memory,
// hash, metadata, created_at, updated_at, user_id, agent_id, run_id}]}`, or a bare list of them)
// and by OpenMemory's backup export (`memories.json`: `{user, apps, memories: [{id, user_id,
// app_id, content, metadata, state, created_at, updated_at, …}]}`, and `memories.jsonl.gz`: one
// `{id, content, metadata, created_at, updated_at, state, app, categories}` per line).

/** Where the memories are in a parsed file, and what OpenMemory's ids stand for. */
function memoriesOf(value: unknown): { list: unknown[]; users: Map<string, string>; apps: Map<string, string> } | undefined {
  const users = new Map<string, string>();
  const apps = new Map<string, string>();
  if (Array.isArray(value)) return { list: value, users, apps };
  if (!isObject(value)) return undefined;
  const list = Array.isArray(value.results) ? value.results : Array.isArray(value.memories) ? value.memories : undefined;
  if (!list) return undefined;
  if (isObject(value.user) && text(value.user.id) && text(value.user.user_id)) users.set(String(value.user.id), String(value.user.user_id));
  for (const a of Array.isArray(value.apps) ? value.apps : []) if (isObject(a) && text(a.id) && text(a.name)) apps.set(String(a.id), String(a.name));
  return { list, users, apps };
}

/** A title from a memory's text: its first line, cut at a word within 80 characters. */
function titleOf(memory: string): string {
  const first = memory.trim().split(/\r?\n/)[0].replace(/\s+/g, ' ');
  if ([...first].length <= 80) return first;
  const cut = capSlug(first.replace(/ /g, '-'), 80).replace(/-/g, ' ');
  return `${cut || [...first].slice(0, 80).join('')}…`;
}

/** One memory as a note item; a reason when it cannot be one. */
function memoryItem(m: unknown, label: string, users: Map<string, string>, apps: Map<string, string>): NoteItem | string | undefined {
  if (!isObject(m)) return 'not a memory object';
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? String(m.id) : undefined;
  const memory = text(m.memory) ?? text(m.content) ?? text(m.text);
  if (!id) return 'a memory with no id';
  if (!memory) return `memory ${id}: no text ("memory" or "content")`;
  if (m.state === 'deleted') return undefined;
  const userId = text(m.user_id);
  const appId = text(m.app_id);
  const metadata = isObject(m.metadata) && Object.keys(m.metadata).length ? m.metadata : undefined;
  const categories = Array.isArray(m.categories) && m.categories.length ? m.categories.filter((c) => typeof c === 'string') : undefined;
  const extra: Record<string, unknown> = {
    user_id: userId ? (users.get(userId) ?? userId) : undefined,
    agent_id: text(m.agent_id),
    run_id: text(m.run_id),
    app: text(m.app) ?? (appId ? (apps.get(appId) ?? appId) : undefined),
    categories,
    state: text(m.state) && m.state !== 'active' ? m.state : undefined,
    created_at: text(m.created_at),
    updated_at: text(m.updated_at),
    metadata,
  };
  return {
    type: 'note',
    id,
    label: `${label} (memory ${id})`,
    title: titleOf(memory),
    body: memory.trim(),
    date: dayOf(m.created_at),
    extra: Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  };
}

/** One note per memory, dated by its creation, its user, agent and run ids in frontmatter. Deleted memories are left out. */
export function readMem0(file: string): ReadInput {
  const content = readInputFile(file);
  const name = path.basename(file);
  const failed: ImportFailure[] = [];
  let entries: { label: string; value: unknown }[];
  let users = new Map<string, string>();
  let apps = new Map<string, string>();
  if (/^\s*[[{]/.test(content) && !/\.jsonl(\.gz)?$/.test(file)) {
    const found = memoriesOf(parseJsonFile(content, file));
    if (!found) return { items: [], failed: [{ item: name, reason: 'not a mem0 export: no list of memories ("results" or "memories")' }] };
    ({ users, apps } = found);
    entries = found.list.map((value, i) => ({ label: `${name} memory #${i + 1}`, value }));
  } else {
    const read = jsonLines(content, file);
    failed.push(...read.failed);
    entries = read.lines.map(({ line, value }) => ({ label: `${name}:${line}`, value }));
  }
  const items: NoteItem[] = [];
  for (const { label, value } of entries) {
    const item = memoryItem(value, label, users, apps);
    if (typeof item === 'string') failed.push({ item: label, reason: item });
    else if (item) items.push(item);
  }
  return { items, failed };
}
