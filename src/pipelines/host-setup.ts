import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ZkError } from '../errors.js';

// What `zk-memory setup HOST` writes into an agent host's settings: the MCP server entry and the
// hooks, for one corpus, as edits of the host's JSON that can be applied again (changing nothing)
// and taken back out exactly. Where each host reads them: Claude Code's settings and MCP scopes
// (code.claude.com/docs/en/hooks, /en/mcp), Gemini CLI's settings.json (its docs/hooks).

export type Scope = 'user' | 'project' | 'local';
export const SCOPES: Scope[] = ['user', 'project', 'local'];

/** What a set-up is for: the host, the scope, the corpus, and the absolute paths it runs. */
export interface SetupTarget {
  host: string;
  scope: Scope;
  root: string;
  home: string;
  /** The project folder (for the project and local scopes). */
  project: string;
  node: string;
  bin: string;
}

/** One JSON object's edit: what it adds, and how to take exactly that out again. */
export interface SettingsEdit {
  file: string;
  /** The object with the entries added (unchanged when they are there already); names what it added. */
  add(json: Record<string, unknown>): { json: Record<string, unknown>; changes: string[] };
  /** The object with the entries this set-up would add taken out; names what it removed. */
  remove(json: Record<string, unknown>): { json: Record<string, unknown>; changes: string[] };
}

/** The name of the MCP server entry. */
export const SERVER_NAME = 'zk-memory';

/** A word for a shell command line: quoted unless it is plainly safe. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command a host's hook runs for this corpus. */
export function hookCommand(t: SetupTarget): string {
  return [t.node, t.bin, 'hook', t.host, '--root', t.root].map(shellWord).join(' ');
}

/**
 * Whether a hook's command is one a set-up for this host and corpus wrote, with whatever node and
 * install of the tool (`… zk-memory.js hook HOST --root ROOT`): after a node upgrade or a new
 * install, a second run brings it up to date instead of adding a second hook beside it.
 */
function runsThisHook(command: unknown, t: SetupTarget): boolean {
  if (typeof command !== 'string') return false;
  const tail = ` ${['hook', t.host, '--root', t.root].map(shellWord).join(' ')}`;
  if (!command.endsWith(tail)) return false;
  const tool = command.slice(0, -tail.length).split(' ').pop() ?? '';
  return /(^|\/)zk-memory(\.js)?'?$/.test(tool);
}

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The object at `keys` below `json`, or undefined; a value of another type there is refused. */
function objectAt(file: string, json: Record<string, unknown>, keys: string[]): Record<string, unknown> | undefined {
  let at: unknown = json;
  for (const [i, k] of keys.entries()) {
    if (!isObject(at)) throw new ZkError('refused', `${file}: "${keys.slice(0, i).join('.')}" is not an object; fix it by hand, nothing was changed`);
    at = at[k];
    if (at === undefined) return undefined;
  }
  if (!isObject(at)) throw new ZkError('refused', `${file}: "${keys.join('.')}" is not an object; fix it by hand, nothing was changed`);
  return at;
}

/** `json` with the object at `keys` replaced by `value` (or taken out, when `value` is undefined), and the empty objects it leaves taken out too. */
function withObjectAt(json: Record<string, unknown>, keys: string[], value: Record<string, unknown> | undefined): Record<string, unknown> {
  const [k, ...rest] = keys;
  const inner = rest.length ? withObjectAt(isObject(json[k]) ? (json[k] as Record<string, unknown>) : {}, rest, value) : value;
  const out = { ...json };
  if (inner === undefined || (rest.length && !Object.keys(inner).length)) delete out[k];
  else out[k] = inner;
  return out;
}

/**
 * Whether an MCP server entry is one a set-up for this corpus wrote, with whatever node and install
 * of the tool (`node …/zk-memory.js mcp --root ROOT`), whatever the user added to it since.
 */
function servesThisCorpus(v: unknown, entry: Record<string, unknown>): v is Record<string, unknown> {
  if (!isObject(v) || !Array.isArray(v.args) || !Array.isArray(entry.args) || v.args.length !== entry.args.length) return false;
  const [bin, ...rest] = v.args as unknown[];
  return /(^|\/)zk-memory(\.js)?$/.test(String(bin)) && isDeepStrictEqual(rest, entry.args.slice(1));
}

/**
 * The MCP server entry under `keys` of a file's JSON. An entry a set-up wrote before keeps what the
 * user added to it (the LLM settings in its `env`); its own keys are brought up to date.
 */
function mcpEdit(file: string, keys: string[], entry: Record<string, unknown>): SettingsEdit {
  const name = [...keys, SERVER_NAME].join('.');
  return {
    file,
    add(json) {
      const servers = objectAt(file, json, keys) ?? {};
      const was = servers[SERVER_NAME];
      const next = servesThisCorpus(was, entry)
        ? { ...was, ...entry, env: { ...(isObject(was.env) ? was.env : {}), ...(entry.env as Record<string, unknown>) } }
        : entry;
      if (isDeepStrictEqual(was, next)) return { json, changes: [] };
      return { json: withObjectAt(json, keys, { ...servers, [SERVER_NAME]: next }), changes: [name] };
    },
    remove(json) {
      const servers = objectAt(file, json, keys);
      if (!servers || !(isDeepStrictEqual(servers[SERVER_NAME], entry) || servesThisCorpus(servers[SERVER_NAME], entry))) return { json, changes: [] };
      const { [SERVER_NAME]: _, ...others } = servers;
      return { json: withObjectAt(json, keys, Object.keys(others).length ? others : undefined), changes: [name] };
    },
  };
}

interface HookGroup {
  matcher?: string;
  hooks?: Record<string, unknown>[];
}

/** The hooks of one event in a settings file (a list of groups), refused when it is something else. */
function groupsOf(file: string, hooks: Record<string, unknown>, event: string): HookGroup[] {
  const v = hooks[event];
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((g) => isObject(g) && (g.hooks === undefined || Array.isArray(g.hooks)))) {
    throw new ZkError('refused', `${file}: "hooks.${event}" is not a list of hook groups; fix it by hand, nothing was changed`);
  }
  return v as HookGroup[];
}

/**
 * The hooks of `events` in a file's `hooks` object, each a group of one handler running `command`;
 * `ours` tells a handler this set-up wrote, also with another node or install of the tool.
 */
function hooksEdit(file: string, events: string[], handler: Record<string, unknown>, ours: (h: Record<string, unknown>) => boolean): SettingsEdit {
  return {
    file,
    add(json) {
      let hooks = objectAt(file, json, ['hooks']) ?? {};
      const changes: string[] = [];
      for (const event of events) {
        const groups = groupsOf(file, hooks, event);
        const mine = groups.flatMap((g) => g.hooks?.filter(ours) ?? []);
        if (mine.length === 1 && mine[0].command === handler.command) continue;
        if (!mine.length) {
          hooks = { ...hooks, [event]: [...groups, { hooks: [handler] }] };
        } else {
          // Written by another node or install: the first brought up to date in place (its other fields as they are), any other taken out.
          let placed = false;
          hooks = {
            ...hooks,
            [event]: groups.flatMap((g) => {
              if (!g.hooks?.some(ours)) return [g];
              const rest = g.hooks.flatMap((h) => (!ours(h) ? [h] : placed ? [] : ((placed = true), [{ ...h, command: handler.command }])));
              return rest.length ? [{ ...g, hooks: rest }] : [];
            }),
          };
        }
        changes.push(`hooks.${event}`);
      }
      return { json: changes.length ? withObjectAt(json, ['hooks'], hooks) : json, changes };
    },
    remove(json) {
      let hooks = objectAt(file, json, ['hooks']);
      if (!hooks) return { json, changes: [] };
      const changes: string[] = [];
      for (const event of events) {
        const groups = groupsOf(file, hooks, event);
        if (!groups.some((g) => g.hooks?.some(ours))) continue;
        // Only what this set-up added goes: a group left empty by taking our handler out, and an event left without groups.
        const kept = groups.flatMap((g) => {
          if (!g.hooks?.some(ours)) return [g];
          const rest = g.hooks.filter((h) => !ours(h));
          return rest.length ? [{ ...g, hooks: rest }] : [];
        });
        const { [event]: _, ...others } = hooks;
        hooks = kept.length ? { ...hooks, [event]: kept } : others;
        changes.push(`hooks.${event}`);
      }
      return { json: changes.length ? withObjectAt(json, ['hooks'], Object.keys(hooks).length ? hooks : undefined) : json, changes };
    },
  };
}

/** The MCP server entry: stdio, absolute paths; what comes through it is redacted, and named after the host. */
function serverEntry(t: SetupTarget, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, command: t.node, args: [t.bin, 'mcp', '--root', t.root], env: { ZK_MEMORY_REDACT: '1', ZK_MEMORY_SOURCE: t.host } };
}

export const CLAUDE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'Stop', 'SessionEnd'];
export const GEMINI_EVENTS = ['SessionStart', 'BeforeAgent', 'AfterAgent'];

/**
 * Claude Code: hooks in `settings.json` of the scope (`~/.claude/`, the project's `.claude/`, or
 * `.claude/settings.local.json`); the MCP server in `~/.claude.json` (user: top level; local: under
 * the project's path) or the project's `.mcp.json`. A hook's timeout is in seconds.
 */
function claudeEdits(t: SetupTarget): SettingsEdit[] {
  const handler = { type: 'command', command: hookCommand(t), timeout: 5 };
  const entry = serverEntry(t, { type: 'stdio' });
  const settings = {
    user: path.join(t.home, '.claude', 'settings.json'),
    project: path.join(t.project, '.claude', 'settings.json'),
    local: path.join(t.project, '.claude', 'settings.local.json'),
  }[t.scope];
  const claudeJson = path.join(t.home, '.claude.json');
  const mcp =
    t.scope === 'user'
      ? mcpEdit(claudeJson, ['mcpServers'], entry)
      : t.scope === 'project'
        ? mcpEdit(path.join(t.project, '.mcp.json'), ['mcpServers'], entry)
        : mcpEdit(claudeJson, ['projects', t.project, 'mcpServers'], entry);
  return [hooksEdit(settings, CLAUDE_EVENTS, handler, (h) => runsThisHook(h.command, t)), mcp];
}

/**
 * Gemini CLI: hooks and the MCP server both in `settings.json` (`~/.gemini/` or the project's
 * `.gemini/`); it has no local scope. A hook's timeout is in milliseconds.
 */
function geminiEdits(t: SetupTarget): SettingsEdit[] {
  if (t.scope === 'local') throw new ZkError('usage', 'Gemini CLI has no local scope: use --scope user or --scope project');
  const file = path.join(t.scope === 'user' ? t.home : t.project, '.gemini', 'settings.json');
  const handler = { name: SERVER_NAME, type: 'command', command: hookCommand(t), timeout: 5000 };
  return [hooksEdit(file, GEMINI_EVENTS, handler, (h) => runsThisHook(h.command, t)), mcpEdit(file, ['mcpServers'], serverEntry(t))];
}

export const SETUP_HOSTS: Record<string, (t: SetupTarget) => SettingsEdit[]> = { claude: claudeEdits, gemini: geminiEdits };

/** The edits a set-up makes for `t`; an unknown host or scope is a usage error. */
export function setupEdits(t: SetupTarget): SettingsEdit[] {
  const edits = Object.hasOwn(SETUP_HOSTS, t.host) ? SETUP_HOSTS[t.host] : undefined;
  if (!edits)
    throw new ZkError(
      'usage',
      `unknown host: ${JSON.stringify(t.host)} (setup knows ${Object.keys(SETUP_HOSTS).join(', ')}; any other host can run "zk-memory hook generic")`,
    );
  if (!SCOPES.includes(t.scope)) throw new ZkError('usage', `unknown scope: ${JSON.stringify(t.scope)} (user, project or local)`);
  return edits(t);
}
