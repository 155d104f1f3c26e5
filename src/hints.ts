import { current } from './context.js';

/**
 * Who reads an answer: a person or script at the command line, or an agent over MCP. A hint names
 * the step to take in the reader's own terms: a command with its flags, or a tool with its
 * arguments.
 */
export type Audience = 'cli' | 'mcp';

/** A step as each surface says it. */
interface Said {
  cli: string;
  mcp: string;
}

/** A word for the shell: quoted when it holds anything a shell would read as more than a word. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9._/:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command line, in backquotes. */
const cmd = (...words: string[]) => `\`zk-memory ${words.join(' ')}\``;

/** A tool call, in backquotes: the tool and the arguments that matter (`…` where the reader fills in). */
const tool = (name: string, args: Record<string, unknown> = {}) => `\`${name}${Object.keys(args).length ? ` ${JSON.stringify(args)}` : ''}\``;

/**
 * Every hint the tool gives, with both of its renderings. A message that tells the reader what to
 * do next takes its words from here, so the two surfaces never drift apart.
 */
const CATALOGUE = {
  /** A slug is taken: add to that note, or take the next free name. */
  slugTaken: (slug: string): Said => ({
    cli: `add to it with \`merge ${shellWord(slug)}\`, or pass --unique for a note of its own`,
    mcp: `add to it with ${tool('merge', { ref: slug, fragment: '…' })}, or call write again with "unique": true for a note of its own`,
  }),
  /** Nothing matched: fewer words, or another engine. */
  noMatch: (other: string): Said => ({
    cli: `try fewer or other words, or --backend ${other}`,
    mcp: `try fewer or other words, or "backend": "${other}"`,
  }),
  /** An empty corpus. */
  firstNote: (): Said => ({ cli: 'write one: zk-memory write SLUG TITLE BODY', mcp: `write one with ${tool('write', { slug: '…', title: '…', body: '…' })}` }),
  /** A listing shows one page. */
  paging: (): Said => ({ cli: '--offset and --limit page through them', mcp: '"offset" and "limit" page through them' }),
  /** Stale links found by a check. */
  repairLinks: (): Said => ({ cli: cmd('tend', 'repair', '--write'), mcp: tool('tend_repair', { write: true }) }),
  /** Links without an anchor, or in a form another tool wrote. */
  anchorLinks: (): Said => ({ cli: cmd('tend', 'robustify', '--write'), mcp: tool('tend_robustify', { write: true }) }),
  /** A tend fix ran as a dry run. */
  writeFix: (): Said => ({ cli: 'add --write', mcp: 'call it again with "write": true' }),
  /** A reading window is open: keep what it says, or skip it. */
  acceptWindow: (window: string): Said => ({
    cli: `${cmd('ingest', 'accept', '--window', shellWord(window), '--title', '"TITLE"', '"BODY"')}   (--merge REF to append, --keep for another note)`,
    mcp: `${tool('ingest_accept', { window, title: '…', body: '…' })}   ("merge": REF to append instead, "keep": true for another note)`,
  }),
  skipWindow: (window: string): Said => ({
    cli: `${cmd('ingest', 'skip', '--window', shellWord(window), '[--reason WHY]')}`,
    mcp: tool('ingest_skip', { window, reason: '…' }),
  }),
  /** A window held from before. */
  heldWindow: (): Said => ({ cli: 'an earlier `next`', mcp: 'an earlier `ingest_next`' }),
  /** The window asked for is closed already. */
  nextWindow: (): Said => ({ cli: 'run `ingest next` for the next one', mcp: 'call `ingest_next` for the next one' }),
  /** No ingest job yet. */
  startJob: (): Said => ({ cli: 'start one with `ingest start --from PATH`', mcp: `start one with ${tool('ingest_start', { from: '…' })}` }),
  /** No window is open to accept into. */
  openWindow: (): Said => ({ cli: 'run `ingest next` first, or pass --window ID', mcp: 'call `ingest_next` first, or pass "window"' }),
  /** Several windows or jobs: name one. */
  nameWindow: (): Said => ({ cli: 'pass --window ID', mcp: 'pass "window"' }),
  nameJob: (): Said => ({ cli: 'pass --job NAME', mcp: 'pass "job"' }),
  /** Input the LLM could not judge waits in the inbox. */
  drainInbox: (): Said => ({ cli: 'retain --drain', mcp: tool('inbox', { action: 'drain' }) }),
  /** An LLM is needed and none is configured. */
  configureLlm: (): Said => ({
    cli: 'pass --llm-base and --llm-model or set ZK_MEMORY_LLM_BASE and ZK_MEMORY_LLM_MODEL',
    mcp: 'this session has none: set ZK_MEMORY_LLM_BASE and ZK_MEMORY_LLM_MODEL in the environment this MCP server is started with (the "env" of its entry in the client\'s MCP configuration; for MCP over HTTP, the memory server\'s own)',
  }),
  /** A note that is superseded already: supersede its successor instead, or the successor is gone and the chain needs mending. */
  supersedeCurrent: (ref: string): Said => ({
    cli: `supersede the current note instead: ${cmd('supersede', shellWord(ref), '--by', 'NEW')}`,
    mcp: `supersede the current note instead: ${tool('supersede', { old: ref, by: '…' })}`,
  }),
  /** A note to re-link has frontmatter the tool cannot edit: it is mended by hand first. */
  fixFrontmatter: (file: string, ref: string): Said => ({
    cli: `fix the frontmatter of ${file} by hand, then run ${cmd('archive', shellWord(ref))} again, or leave the note where it is`,
    mcp: `the frontmatter of ${file} must be fixed by hand on the server, then call ${tool('archive', { ref })} again; or leave the note where it is`,
  }),
  /** A note superseded by two current notes: keep one belief, by superseding or archiving the other. */
  settleFork: (older: string, newer: string): Said => ({
    cli: `supersede one successor by the other (${cmd('supersede', shellWord(older), '--by', shellWord(newer))}) or archive one (${cmd('archive', shellWord(older))})`,
    mcp: `supersede one successor by the other (${tool('supersede', { old: older, by: newer })}) or archive one (${tool('archive', { ref: older })})`,
  }),
  /** A name clash that a title or a file name resolves. */
  nameByFile: (): Said => ({ cli: 'name one by its file name', mcp: 'pass one of the file names as "ref"' }),
  /** An option by name: a flag on the command line, an argument over MCP (`--valid-from`, `"valid_from"`). */
  option: (name: string): Said => ({ cli: `--${name}`, mcp: `"${name.replace(/-/g, '_')}"` }),
  /** A command by name: `ingest accept` on the command line, the tool `ingest_accept` over MCP. */
  command: (name: string): Said => ({ cli: name, mcp: name.replace(/ /g, '_') }),
  /** The vector index holds another model's embeddings: it is built again, on the host that keeps it. */
  rebuildVectors: (): Said => ({
    cli: `run ${cmd('index', '--rebuild')} to re-embed with the new model`,
    mcp: "the memory's owner must rebuild the vector index on its host to re-embed with the new model",
  }),
  /** A note's history in git. */
  noteLog: (ref: string): Said => ({ cli: cmd('log', shellWord(ref)), mcp: tool('log', { ref }) }),
  /** A search with no words in it. */
  searchWords: (): Said => ({
    cli: `pass a question or some words: ${cmd('search', "'where does Judy live'")}`,
    mcp: `pass a question or some words as "query": ${tool('search', { query: 'where does Judy live' })}`,
  }),
  /** What becomes of memories when no LLM is configured. */
  withoutLlm: (): Said => ({
    cli: 'integrate and retain park their input in the inbox',
    mcp: 'keep memories yourself: `write` a new note, `merge` into one, `supersede` one that changed',
  }),
  /** A note just written has a title like a live note's: add to that one instead, and retract the new one. */
  similarTitle: (existing: string, written: string): Said => ({
    cli: `if it is the same subject, add to it instead with ${cmd('merge', shellWord(existing), 'TEXT')} and retract the new note with ${cmd('archive', shellWord(written))}`,
    mcp: `if it is the same subject, add to it instead with ${tool('merge', { ref: existing, fragment: '…' })} and retract the new note with ${tool('archive', { ref: written })}`,
  }),
} satisfies Record<string, (...args: never[]) => Said>;

export type HintName = keyof typeof CATALOGUE;

/** The audience of the current call: an MCP session says so in its context; everything else is the command line. */
export function audience(): Audience {
  return current().audience ?? 'cli';
}

/** A hint from the catalogue, in the words of the current call's audience. */
export function hint<K extends HintName>(name: K, ...args: Parameters<(typeof CATALOGUE)[K]>): string {
  const said = (CATALOGUE[name] as (...a: typeof args) => Said)(...args);
  return said[audience()];
}

/** Both renderings of a hint, for tests and docs that show them side by side. */
export function hintBoth<K extends HintName>(name: K, ...args: Parameters<(typeof CATALOGUE)[K]>): Said {
  return (CATALOGUE[name] as (...a: typeof args) => Said)(...args);
}

/** The names of every hint in the catalogue. */
export function hintNames(): HintName[] {
  return Object.keys(CATALOGUE) as HintName[];
}
