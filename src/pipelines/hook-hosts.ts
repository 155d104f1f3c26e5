import { claudeTranscriptTurns, exchangeTurns, type Turn } from './capture.js';
import { emptyHookAnswer } from './hook-answers.js';

// The agent hosts whose hooks call `zk-memory hook HOST`: what each sends on stdin, and the form
// its answer takes. Claude Code: code.claude.com/docs/en/hooks; Gemini CLI: its docs/hooks
// (index.md and reference.md), checked against gemini-cli's repository in December 2026.

/** What one hook event asks of the memory. */
export type HookAction =
  | { kind: 'session' }
  | { kind: 'prompt'; prompt: string }
  | { kind: 'capture'; session: string; turns: () => Turn[] }
  | { kind: 'none' };

export interface HookInput {
  event: string;
  /** The session's working folder, when the host says. */
  cwd?: string;
  action: HookAction;
}

export interface HookHost {
  name: string;
  /** The host's input; a throw means it was not what the host sends (answered with `empty`). */
  parse(stdin: string): HookInput;
  /** The answer that adds `text` to the agent's context for this event. */
  answer(event: string, text: string): string;
  /** The answer that changes nothing: valid for every event. */
  empty: string;
}

/** The longest session id kept: ids are uuids, and this one goes into file contents and the trace. */
const MAX_SESSION = 200;

function object(stdin: string): Record<string, unknown> {
  const v = JSON.parse(stdin) as unknown;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('the hook input is not a JSON object');
  return v as Record<string, unknown>;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function session(input: Record<string, unknown>): string {
  const id = text(input.session_id);
  if (!id?.trim()) throw new Error('the hook input has no session_id');
  return id.slice(0, MAX_SESSION);
}

/** The documented JSON answer of both hosts: context added through `hookSpecificOutput`. */
function additionalContext(event: string, context: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`;
}

function prompt(input: Record<string, unknown>): HookAction {
  const p = text(input.prompt)?.trim();
  return p ? { kind: 'prompt', prompt: p } : { kind: 'none' };
}

type Input = Record<string, unknown>;

/**
 * A host that sends one JSON object per event and takes context as `hookSpecificOutput`: which of
 * its events starts a session, which carries a prompt, and which hand over turns to capture (each
 * reading them from the event's input). Any other event asks nothing.
 */
function jsonHost(name: string, events: { session: string; prompt: string; capture: Record<string, (event: string, input: Input) => () => Turn[]> }): HookHost {
  return {
    name,
    empty: emptyHookAnswer(name),
    parse(stdin) {
      const input = object(stdin);
      const event = text(input.hook_event_name) ?? '';
      const cwd = text(input.cwd);
      if (event === events.session) return { event, cwd, action: { kind: 'session' } };
      if (event === events.prompt) return { event, cwd, action: prompt(input) };
      const capture = Object.hasOwn(events.capture, event) ? events.capture[event] : undefined;
      if (capture) return { event, cwd, action: { kind: 'capture', session: session(input), turns: capture(event, input) } };
      return { event, cwd, action: { kind: 'none' } };
    },
    answer: additionalContext,
  };
}

/** Claude Code: PreCompact, Stop and SessionEnd capture the transcript at `transcript_path` (JSONL). */
function claudeTranscript(event: string, input: Input): () => Turn[] {
  const transcript = text(input.transcript_path);
  if (!transcript) throw new Error(`${event} without a transcript_path`);
  return () => claudeTranscriptTurns(transcript);
}

const claude = jsonHost('claude', {
  session: 'SessionStart',
  prompt: 'UserPromptSubmit',
  capture: { PreCompact: claudeTranscript, Stop: claudeTranscript, SessionEnd: claudeTranscript },
});

/** Gemini CLI: AfterAgent hands over the turn itself (`prompt`, `prompt_response`), which is what is captured. */
const gemini = jsonHost('gemini', {
  session: 'SessionStart',
  prompt: 'BeforeAgent',
  capture: {
    AfterAgent: (_event, input) => {
      const turns = exchangeTurns(text(input.prompt) ?? '', text(input.prompt_response) ?? '');
      return () => turns;
    },
  },
});

/** Any other host: the prompt as text on stdin, the bundle as text on stdout. */
const generic: HookHost = {
  name: 'generic',
  empty: emptyHookAnswer('generic'),
  parse(stdin) {
    const p = stdin.trim();
    return { event: 'prompt', action: p ? { kind: 'prompt', prompt: p } : { kind: 'none' } };
  },
  answer: (_event, context) => `${context}\n`,
};

export const HOOK_HOSTS: Record<string, HookHost> = { claude, gemini, generic };
