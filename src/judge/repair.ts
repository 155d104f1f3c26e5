import { isKind, type Kind } from '../corpus/note/kinds.js';
import { slugify, titleSlug } from '../corpus/note/slug.js';

/**
 * Harmless slips a model makes are repaired, never silently: every repair is described in `repairs`
 * (one line each, for the trace). What cannot be repaired is left for validation to reject.
 */
type Obj = Record<string, unknown>;
/** A JSON schema (or a part of one), read as any JSON: each keyword is checked before it is used. */
type Schema = Obj;

export function isPlainObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** Lines of a text as list items, bullets and numbering removed. */
function listFromText(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter(Boolean);
}

/** `Entity Update` / `entity-update` → `entity_update`, when that is one of the allowed values. */
function canonicalEnum(value: string, allowed: string[]): string | undefined {
  const norm = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return allowed.find((a) => a === norm);
}

function fitString(value: unknown, schema: Schema, at: string, repairs: string[]): unknown {
  let s: string;
  if (typeof value === 'string') s = value.trim();
  else if (typeof value === 'number' || typeof value === 'boolean') {
    s = String(value);
    repairs.push(`${at}: ${show(value)} read as text`);
  } else return value;
  if (Array.isArray(schema.enum)) {
    const canonical = canonicalEnum(s, schema.enum);
    if (canonical && canonical !== s) {
      repairs.push(`${at}: ${show(s)} read as ${show(canonical)}`);
      s = canonical;
    }
  }
  const chars = [...s];
  if (typeof schema.maxLength === 'number' && chars.length > schema.maxLength) {
    repairs.push(`${at}: clipped from ${chars.length} to ${schema.maxLength} characters`);
    s = chars.slice(0, schema.maxLength).join('').trimEnd();
  }
  return s;
}

function fitBoolean(value: unknown, at: string, repairs: string[]): unknown {
  if (typeof value !== 'string' || !/^(true|false)$/i.test(value.trim())) return value;
  repairs.push(`${at}: ${show(value)} read as a boolean`);
  return value.trim().toLowerCase() === 'true';
}

/** The schema under `key` of a schema (`items`, a property's), or none. */
const part = (schema: Schema, key: string): Schema => (isPlainObject(schema[key]) ? schema[key] : {});

function fitArray(value: unknown, schema: Schema, at: string, repairs: string[]): unknown {
  let list = value;
  const itemSchema = part(schema, 'items');
  if (typeof list === 'string' && itemSchema.type === 'string') {
    list = listFromText(list);
    repairs.push(`${at}: text read as a list of ${(list as unknown[]).length}`);
  } else if (isPlainObject(list) && itemSchema.type === 'object') {
    list = [list];
    repairs.push(`${at}: a single object read as a list of one`);
  }
  if (!Array.isArray(list)) return value;
  let items = list.map((item, i) => fitToSchema(item, itemSchema, `${at}/${i}`, repairs));
  if (typeof schema.maxItems === 'number' && items.length > schema.maxItems) {
    repairs.push(`${at}: ${items.length} items, kept the first ${schema.maxItems}`);
    items = items.slice(0, schema.maxItems);
  }
  return items;
}

function fitObject(value: unknown, schema: Schema, at: string, repairs: string[]): unknown {
  if (!isPlainObject(value)) return value;
  const props = part(schema, 'properties');
  const out: Obj = {};
  // Keys the schema does not know are not ours to keep; absent (null) values are simply absent.
  for (const [key, v] of Object.entries(value)) {
    if (key in props && v !== null && v !== undefined) out[key] = fitToSchema(v, part(props, key), at ? `${at}/${key}` : key, repairs);
  }
  return out;
}

/**
 * Bring an answer into its schema's shape where that is harmless: trim text, read numbers and
 * booleans given as text, canonical spellings of enum values, a text as a list, a lone object as a
 * list of one, strings clipped to maxLength, lists cut to maxItems.
 */
export function fitToSchema(value: unknown, schema: Schema, at: string, repairs: string[]): unknown {
  switch (schema.type) {
    case 'object':
      return fitObject(value, schema, at, repairs);
    case 'array':
      return fitArray(value, schema, at, repairs);
    case 'string':
      return fitString(value, schema, at, repairs);
    case 'boolean':
      return fitBoolean(value, at, repairs);
    default:
      return value;
  }
}

/** A kind outside the closed set (or none) becomes concept. */
export function repairKind(item: Obj, at: string, repairs: string[]): Kind {
  if (isKind(item.kind)) return item.kind;
  repairs.push(`${at}/kind: ${item.kind === undefined ? 'missing' : `${show(item.kind)} is not a kind`}; read as concept`);
  item.kind = 'concept';
  return 'concept';
}

/** Optional text fields the model left out are empty; whether empty is acceptable is decided later. */
export function defaultText(item: Obj, keys: string[]): void {
  for (const k of keys) item[k] ??= '';
}

/**
 * A slug as the corpus spells slugs; when the model gave none usable, the slug of the first
 * non-empty fallback (title, then topic), made as a title's slug is. May stay empty when nothing yields one.
 */
export function repairSlug(item: Obj, at: string, repairs: string[], fallbacks: unknown[]): void {
  const given = typeof item.slug === 'string' ? item.slug : '';
  let slug = slugify(given);
  if (slug && slug !== given) repairs.push(`${at}/slug: ${show(given)} sanitized to ${show(slug)}`);
  if (!slug) {
    for (const f of fallbacks) {
      slug = typeof f === 'string' ? titleSlug(f) : '';
      if (slug) {
        repairs.push(`${at}/slug: ${given ? `${show(given)} unusable` : 'missing'}; derived ${show(slug)}`);
        break;
      }
    }
  }
  item.slug = slug;
}
