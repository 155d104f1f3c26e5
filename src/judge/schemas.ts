import { KINDS, type Kind } from '../corpus/note/kinds.js';
import { MAX_SLUG } from '../corpus/note/slug.js';

/** Longest strings an answer may carry; longer ones are clipped (and the clip traced). */
export const LIMITS = {
  title: 200,
  topic: 200,
  choice: 1000,
  alternative: 500,
  rationale: 4000,
  reason: 2000,
  summary: 8000,
} as const;

export const DISTILL_CALL = 'record_candidates';
export const MERGE_CALL = 'record_merge_decision';
export const SPLIT_CALL = 'record_split_decision';

export const MAX_SPLIT_FRAGMENTS = 4;

/** A memory drafted from a conversation, before it is written anywhere. */
export interface Candidate {
  kind: Kind;
  /** The subject in a few words: what the memory is about, used to look for an existing note. */
  topic: string;
  /** May be empty for an entity_update (it is meant to be appended to an existing note). */
  title: string;
  slug: string;
  content: string;
  /** Decisions only. */
  choice?: string;
  alternatives?: string[];
  rationale?: string;
}

export interface Distillation {
  worth_retaining: boolean;
  candidates: Candidate[];
}

export const MERGE_ACTIONS = ['merge', 'create', 'supersede'] as const;
export type MergeAction = (typeof MERGE_ACTIONS)[number];

export interface MergeDecision {
  action: MergeAction;
  /** The id of a shown note; empty for create. */
  target: string;
  reason: string;
  /** For supersede: the day the new memory says it holds true from ("since October"); empty when it does not say. */
  valid_from?: string;
}

export interface SplitFragment {
  title: string;
  slug: string;
  content: string;
  kind: Kind;
  /** Decisions only, as for a candidate. */
  choice?: string;
  alternatives?: string[];
  rationale?: string;
}

export interface SplitDecision {
  split: boolean;
  parent_summary: string;
  fragments: SplitFragment[];
}

type Schema = Record<string, unknown>;

/** The parts of a decision beside its content, as a drafted memory or a split fragment gives them. */
const decisionPartsSchema = {
  choice: { type: 'string', maxLength: LIMITS.choice, description: 'decision only: what was chosen' },
  alternatives: {
    type: 'array',
    items: { type: 'string', maxLength: LIMITS.alternative },
    description: 'decision only: the options that were considered and not chosen',
  },
  rationale: { type: 'string', maxLength: LIMITS.rationale, description: 'decision only: why it was chosen' },
};

const kindSchema = {
  type: 'string',
  enum: [...KINDS],
  description:
    'concept: a durable idea or fact that stands alone; entity_update: a new fact about a person, project or thing that already has (or deserves) its own note; decision: a choice that was made',
};

const slugSchema = {
  type: 'string',
  maxLength: MAX_SLUG,
  description: 'a short file-name slug: lowercase words joined by hyphens',
};

export const distillSchema: Schema = {
  type: 'object',
  properties: {
    worth_retaining: { type: 'boolean', description: 'whether the conversation holds anything worth remembering later' },
    candidates: {
      type: 'array',
      description: 'the memories to keep, one self-contained thought each; empty when nothing is worth keeping',
      items: {
        type: 'object',
        properties: {
          kind: kindSchema,
          topic: {
            type: 'string',
            maxLength: LIMITS.topic,
            description: 'the subject in a few words (a name or a concept), used to find an existing note about it',
          },
          title: { type: 'string', maxLength: LIMITS.title, description: 'a short title that names the thought; may be empty for an entity_update' },
          slug: { ...slugSchema, description: `${slugSchema.description}; may be empty for an entity_update` },
          content: { type: 'string', minLength: 1, description: 'the memory itself in full sentences that make sense with nothing around them' },
          ...decisionPartsSchema,
        },
        required: ['kind', 'topic', 'title', 'slug', 'content'],
      },
    },
  },
  required: ['worth_retaining', 'candidates'],
};

const VALID_FROM = {
  type: 'string',
  description: 'for supersede, when the new memory says since when it holds true ("since October"): that day, YYYY-MM-DD; empty when it does not say',
} as const;

/** The merge judge's schema; `supersede` is offered only where the caller can act on it. */
export function mergeSchema(allowSupersede = true): Schema {
  const actions = allowSupersede ? [...MERGE_ACTIONS] : MERGE_ACTIONS.filter((a) => a !== 'supersede');
  return {
    type: 'object',
    properties: {
      action: { type: 'string', enum: actions, description: 'what to do with the new memory' },
      target: {
        type: 'string',
        description: `for ${actions.filter((a) => a !== 'create').join(' or ')}: the id of the shown note, exactly as shown; empty for create`,
      },
      reason: { type: 'string', maxLength: LIMITS.reason, description: 'one sentence on why' },
      ...(allowSupersede ? { valid_from: VALID_FROM } : {}),
    },
    required: ['action', 'target', 'reason'],
  };
}

/** The split judge's schema, allowing at most `maxFragments` fragments. */
export function splitSchema(maxFragments = MAX_SPLIT_FRAGMENTS): Schema {
  return {
    type: 'object',
    properties: {
      split: { type: 'boolean', description: 'true only when the note really holds several separate thoughts' },
      parent_summary: { type: 'string', maxLength: LIMITS.summary, description: 'when splitting: a short overview that keeps the note what it is about' },
      fragments: {
        type: 'array',
        maxItems: maxFragments,
        description: 'when splitting: the separate thoughts, each a note of its own',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1, maxLength: LIMITS.title },
            slug: slugSchema,
            content: { type: 'string', minLength: 1 },
            kind: kindSchema,
            ...decisionPartsSchema,
          },
          required: ['title', 'slug', 'content', 'kind'],
        },
      },
    },
    required: ['split', 'parent_summary', 'fragments'],
  };
}
