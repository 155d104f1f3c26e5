// What a format's reader makes of its input: items the import writes, one at a time, all of each
// or none, and the parts of the input it could not read.

/** A link a note item makes to another item of the same input, by that item's source id. */
export interface ItemLink {
  label: string;
  to: string;
}

/** Where the notes of an import went, for a body whose links must lead to them. */
export interface PlacedNotes {
  /** The file name the note of item `id` has (or is given), when the input has that item. */
  name(id: string): string | undefined;
  /** Whether `target`, written as a wikilink, names the note of item `id` in the corpus after the import. */
  names(target: string, id: string): boolean;
}

/** A new note made from an item: rendered by the import, named after its title. */
export interface NoteItem {
  type: 'note';
  /** The item's id in its source: with the format, what makes a re-import find it again. */
  id: string;
  /** Where the item is in the input, for messages (`memory.jsonl:3`, `entity "Alice"`). */
  label: string;
  title: string;
  /** The text below the title; made once every note is placed when it links to other items. */
  body: string | ((placed: PlacedNotes) => string);
  /** The uuid the source gave the note, kept; else a new one. */
  uuid?: string;
  /** `YYYY-MM-DD`; today when the source does not say. */
  date?: string;
  kind?: string;
  author?: string;
  /** Frontmatter keys of the source kept on the note (after `imported_from`). */
  extra?: Record<string, unknown>;
  /** Links to other items, listed under `## Relations`. */
  links?: ItemLink[];
}

/** A note file brought back exactly as it was exported: its name, its bytes, where it lived. */
export interface VerbatimItem {
  type: 'verbatim';
  /** Its uuid, or its file name when it has none. */
  id: string;
  label: string;
  name: string;
  text: string;
  archived: boolean;
}

/** A conversation to distill: one `retain` input left in the inbox for an LLM. */
export interface ConversationItem {
  type: 'conversation';
  id: string;
  label: string;
  /** The conversation as a transcript, with its title, date and id at the head. */
  transcript: string;
  /** Who it comes from, as the inbox and the notes distilled from it say. */
  source: string;
}

export type ImportItem = NoteItem | VerbatimItem | ConversationItem;

/** A part of the input that could not be imported, and why. */
export interface ImportFailure {
  item: string;
  reason: string;
}

/** What a reader made of the input. */
export interface ReadInput {
  items: ImportItem[];
  failed: ImportFailure[];
  /** Files of a folder that are not notes (images, PDFs): listed in the report, not copied. */
  attachments?: string[];
}
