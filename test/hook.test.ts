import { execa, type ResultPromise } from 'execa';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { startFakeLlm } from './helpers/fake-llm-server.js';

// `zk-memory hook HOST` as agent hosts run it: the built CLI in a process of its own, fed each
// event's JSON on stdin as the host sends it, with transcripts written by the test, the resident
// server on and off. Whatever goes wrong, a hook exits 0 with output the host accepts.

const note = (uuid: string, title: string, body: string) => `---\nuuid: ${uuid}\n---\n# ${title}\n\n${body}\n`;
const UUID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const LOCKER = path.join(REPO, 'test', 'workers', 'locker.mjs');

const started: { root: string; env: Record<string, string> }[] = [];
const foreground: ResultPromise[] = [];

const mounts: string[] = [];

afterEach(async () => {
  for (const d of mounts.splice(0)) {
    execFileSync('umount', [d], { stdio: 'ignore' });
    fs.rmdirSync(d);
  }
  for (const p of foreground.splice(0)) {
    p.kill('SIGCONT');
    p.kill('SIGKILL');
    await p.catch(() => undefined);
  }
  for (const { root, env } of started.splice(0)) await zk(['serve', '--stop', '--root', root], { env });
});

/**
 * A corpus with two notes about Judy, its search index built, and the environment its hooks run
 * with (no server unless asked).
 */
async function setUp(mode = 'off'): Promise<{ root: string; env: Record<string, string> }> {
  const root = tempCorpus();
  write(root, '20261201-judy.md', note(UUID(1), 'Judy lives in Paris', 'She moved there in October.'));
  write(root, '20261201-miso.md', note(UUID(2), 'Judy has a cat named Miso', 'Miso is grey and shy.'));
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  // A deadline no loaded test machine reaches, but where a test is about the deadline itself.
  const env = { ZK_MEMORY_SERVER: mode, XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_HOOK_TIMEOUT: '60' };
  if (mode !== 'off') started.push({ root, env });
  // Set-up, not what is tested: in this process.
  expect((await zk(['--root', root, 'index'], { env: { ...env, ZK_MEMORY_SERVER: 'off' } })).code).toBe(0);
  return { root, env };
}

/** Run the hook of `host` with `input` on stdin, in a process of its own as its host runs it. */
function hook(host: string, input: string, o: { root?: string; env?: Record<string, string>; cwd?: string } = {}) {
  return zkProcess(['hook', host, ...(o.root ? ['--root', o.root] : [])], { input, env: o.env, cwd: o.cwd });
}

/**
 * The same hook run in this process: for what a hook answers and keeps, once a test has shown its
 * host's process getting the same (a process start costs more CPU than the hook's work).
 */
function hookHere(host: string, input: string, o: { root?: string; env?: Record<string, string>; cwd?: string } = {}) {
  return zk(['hook', host, ...(o.root ? ['--root', o.root] : [])], { input, env: o.env, cwd: o.cwd });
}

const claudeEvent = (event: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: 's-1', transcript_path: '/nonexistent/t.jsonl', cwd: '/', hook_event_name: event, ...fields });

/** The context a Claude Code or Gemini CLI answer adds, or undefined when it adds none. */
function added(stdout: string, event: string): string | undefined {
  const out = JSON.parse(stdout);
  if (out.hookSpecificOutput === undefined) return undefined;
  expect(out.hookSpecificOutput.hookEventName).toBe(event);
  return out.hookSpecificOutput.additionalContext;
}

const hookLog = (root: string) =>
  fs.existsSync(path.join(root, '.zk', 'hooks.log'))
    ? fs
        .readFileSync(path.join(root, '.zk', 'hooks.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
const inboxFiles = (root: string) =>
  fs.existsSync(path.join(root, '.zk', 'inbox'))
    ? fs
        .readdirSync(path.join(root, '.zk', 'inbox'))
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
const inboxEntry = (root: string, name: string) => JSON.parse(fs.readFileSync(path.join(root, '.zk', 'inbox', name), 'utf8'));
/** The text of each inbox input, oldest first. */
const inboxTexts = (root: string): string[] =>
  inboxFiles(root).map((f) =>
    inboxEntry(root, f)
      .items.map((i: any) => i.text)
      .join('\n'),
  );

/** A Claude Code transcript line. */
const line = (type: 'user' | 'assistant', uuid: string, content: unknown) => JSON.stringify({ type, uuid, sessionId: 's-1', message: { role: type, content } });

/** Every byte under `dir`, as one buffer per file. */
function everyFile(dir: string): Buffer[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? everyFile(p) : e.isFile() ? [fs.readFileSync(p)] : [];
  });
}

describe('hook claude: context', () => {
  it('SessionStart adds the session bundle, UserPromptSubmit the notes for the prompt, as hookSpecificOutput.additionalContext', async () => {
    const { root, env } = await setUp();
    const start = await hook('claude', claudeEvent('SessionStart', { source: 'startup' }), { root, env });
    expect(start.code, start.stderr).toBe(0);
    const bundle = added(start.stdout, 'SessionStart')!;
    expect(bundle).toMatch(/^<recall source="zk-memory">\n/);
    expect(bundle).toContain('20261201-judy.md');
    const prompt = await hook('claude', claudeEvent('UserPromptSubmit', { prompt: 'Where does Judy live?' }), { root, env });
    expect(prompt.code).toBe(0);
    const ctx = added(prompt.stdout, 'UserPromptSubmit')!;
    expect(ctx).toContain('Judy lives in Paris (20261201-judy.md');
    expect(ctx.length).toBeLessThanOrEqual(10_000);
    // nothing in memory for it: nothing added, and the answer is still valid JSON
    const none = await hookHere('claude', claudeEvent('UserPromptSubmit', { prompt: 'zyzzyva quux' }), { root, env });
    expect(none.code).toBe(0);
    expect(added(none.stdout, 'UserPromptSubmit')).toBeUndefined();
    // an event it has no use for
    const other = await hookHere('claude', claudeEvent('PreToolUse', { tool_name: 'Bash' }), { root, env });
    expect([other.code, JSON.parse(other.stdout)]).toEqual([0, {}]);
  });

  it("the corpus is found from the hook's cwd when neither --root nor ZK_MEMORY_ROOT names one", async () => {
    const { root, env } = await setUp();
    const sub = path.join(root, 'sub');
    fs.mkdirSync(sub);
    const r = await hook('claude', claudeEvent('UserPromptSubmit', { prompt: 'Judy cat', cwd: sub }), { env, cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(added(r.stdout, 'UserPromptSubmit')).toContain('20261201-miso.md');
  });

  it('the session bundle says what waits in the inbox and how the agent keeps it', async () => {
    const { root, env } = await setUp();
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'I prefer tabs to spaces.')}\n${line('assistant', 'a1', 'Noted: tabs.')}\n`);
    expect((await hookHere('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    const start = await hookHere('claude', claudeEvent('SessionStart', { source: 'startup' }), { root, env });
    expect(added(start.stdout, 'SessionStart')).toMatch(/1 input waits in the memory's inbox[^\n]*inbox_next[^\n]*inbox_done/);
  });
});

describe('hook: a hook never breaks the session', () => {
  it('no corpus, garbage, empty stdin, a missing transcript, an unknown host: exit 0 with the empty answer, and a line in .zk/hooks.log when there is a corpus', async () => {
    const { root, env } = await setUp();
    const gone = path.join(tempDir(), 'nope');
    for (const r of [
      await hook('claude', claudeEvent('SessionStart'), { root: gone, env }),
      await hook('claude', claudeEvent('SessionStart', { cwd: tempDir() }), { env, cwd: tempDir() }),
      await hook('gemini', claudeEvent('BeforeAgent', { prompt: 'Judy' }), { root: gone, env }),
    ])
      expect([r.code, r.stdout]).toEqual([0, '{}']);
    const garbage = await hook('claude', '\u0000{not json at all', { root, env });
    expect([garbage.code, garbage.stdout]).toEqual([0, '{}']);
    const empty = await hookHere('claude', '', { root, env });
    expect([empty.code, empty.stdout]).toEqual([0, '{}']);
    const array = await hookHere('claude', '[1,2]', { root, env });
    expect([array.code, array.stdout]).toEqual([0, '{}']);
    const missing = await hookHere('claude', claudeEvent('Stop', { transcript_path: path.join(root, 'no-such.jsonl') }), { root, env });
    expect([missing.code, missing.stdout]).toEqual([0, '{}']);
    // a transcript that is a device or a FIFO is refused, not read forever
    for (const device of ['/dev/zero', path.join(root, 'fifo')]) {
      if (device.endsWith('fifo')) await execa('mkfifo', [device]);
      const r = await hookHere('claude', claudeEvent('Stop', { transcript_path: device }), { root, env });
      expect([r.code, r.stdout], device).toEqual([0, '{}']);
    }
    const generic = await hookHere('generic', '', { root, env });
    expect([generic.code, generic.stdout]).toEqual([0, '']);
    const unknown = await hook('codex', claudeEvent('SessionStart'), { root, env });
    expect([unknown.code, unknown.stdout]).toEqual([0, '']);
    const log = hookLog(root);
    expect(log.map((l) => l.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed']);
    expect(log.slice(4, 6).map((l) => l.error)).toEqual([expect.stringContaining('not a regular file'), expect.stringContaining('not a regular file')]);
    expect(log[0]).toMatchObject({ host: 'claude', event: null, error: 'unreadable hook input: not JSON' });
    expect(log[3]).toMatchObject({ host: 'claude', event: 'Stop', error: expect.stringContaining('no-such.jsonl') });
    // nothing of the input in the log
    expect(JSON.stringify(log)).not.toContain('not json at all');
  });

  it('work that never ends is answered empty within the deadline, and logged', async () => {
    const { root, env } = await setUp();
    const r = await hook('claude', claudeEvent('UserPromptSubmit', { prompt: 'Judy' }), {
      root,
      env: { ...env, ZK_MEMORY_FAULT: 'hook-hang', ZK_MEMORY_HOOK_TIMEOUT: '2' },
    });
    expect([r.code, r.stdout]).toEqual([0, '{}']);
    // the hook's own deadline, or on a loaded machine the process's guard, answered: either way one line says so
    const log = hookLog(root);
    expect(log).toHaveLength(1);
    expect(['timed out', 'guard']).toContain(log[0].outcome);
  });

  it('a corpus lock held by another process holds no hook up: Stop captures beside it', async () => {
    const { root, env } = await setUp();
    fs.writeFileSync(path.join(root, 'counter'), '0');
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'The build runs on Fridays.')}\n`);
    const holder = execa('node', [LOCKER, root, 'count', '1', '6000'], { env: { ...process.env, ...env }, reject: false });
    await new Promise<void>((resolve) => holder.stdout!.on('data', (c) => String(c).includes('locked') && resolve()));
    const r = await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env });
    expect([r.code, r.stdout]).toEqual([0, '{}']);
    expect(inboxFiles(root)).toHaveLength(1);
    await holder;
  });

  it('a capture of the same session held by a live process: Stop answers empty in time and logs it; the next Stop captures, once', async () => {
    const { root, env } = await setUp();
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'The build runs on Fridays.')}\n`);
    expect((await hookHere('claude', claudeEvent('Stop', { session_id: 'other', transcript_path: transcript }), { root, env })).code).toBe(0);
    const [checkpoint] = fs.readdirSync(path.join(root, '.zk', 'capture'));
    const lock = path.join(root, '.zk', 'capture', checkpoint.replace('.json', '.lock'));
    // the session's lock is named like its checkpoint: start again from nothing, with the lock held by a live process
    fs.rmSync(path.join(root, '.zk', 'capture'), { recursive: true });
    fs.rmSync(path.join(root, '.zk', 'inbox'), { recursive: true });
    fs.mkdirSync(path.join(root, '.zk', 'capture'));
    fs.writeFileSync(lock, JSON.stringify({ host: os.hostname(), pid: process.pid }));
    const r = await hook('claude', claudeEvent('Stop', { session_id: 'other', transcript_path: transcript }), {
      root,
      env: { ...env, ZK_MEMORY_HOOK_TIMEOUT: '2' },
    });
    expect([r.code, r.stdout]).toEqual([0, '{}']);
    expect(hookLog(root).map((l) => l.outcome)).toEqual([expect.stringMatching(/^(timed out|guard)$/)]);
    expect(inboxFiles(root)).toEqual([]);
    // the holder goes: the next capture takes its turns, once
    fs.writeFileSync(lock, JSON.stringify({ host: os.hostname(), pid: 2 ** 22 + 7 }));
    expect((await hookHere('claude', claudeEvent('Stop', { session_id: 'other', transcript_path: transcript }), { root, env })).code).toBe(0);
    expect((await hookHere('claude', claudeEvent('Stop', { session_id: 'other', transcript_path: transcript }), { root, env })).code).toBe(0);
    expect(inboxFiles(root)).toHaveLength(1);
  });
});

describe('hook claude: a full disk', () => {
  it('Stop on a full disk answers empty, leaves no partial file and marks no turn taken; once there is room, the turns are captured once', async (ctx) => {
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-tmpfs-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', disk], { stdio: 'ignore' });
    } catch {
      fs.rmdirSync(disk);
      return ctx.skip(); // needs root
    }
    mounts.push(disk);
    const root = path.join(disk, 'corpus');
    expect((await zk(['init', root])).code).toBe(0);
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', `Remember this: ${'x'.repeat(2000)}`)}\n`);
    const env = { ZK_MEMORY_SERVER: 'off', ZK_MEMORY_HOOK_TIMEOUT: '60' };
    const stop = (run = hookHere) => run('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env });
    // a first capture makes the folders; then the disk is filled
    expect((await stop()).code).toBe(0);
    fs.appendFileSync(transcript, `${line('assistant', 'a1', `Kept: ${'y'.repeat(2000)}`)}\n`);
    const filler = path.join(disk, 'filler');
    try {
      fs.writeFileSync(filler, Buffer.alloc(fs.statfsSync(disk).bavail * fs.statfsSync(disk).bsize));
    } catch {
      // filled to the last block it could
    }
    const full = await stop(hook);
    expect([full.code, full.stdout]).toEqual([0, '{}']);
    expect(fs.readdirSync(path.join(root, '.zk', 'inbox')).filter((f) => !f.endsWith('.json'))).toEqual([]);
    expect(inboxFiles(root)).toHaveLength(1); // only the first capture's
    fs.rmSync(filler);
    expect((await stop()).code).toBe(0);
    expect((await stop()).code).toBe(0);
    const texts = inboxTexts(root).join('\n');
    expect(texts.match(/Remember this/g)).toHaveLength(1);
    expect(texts.match(/Kept: y/g)).toHaveLength(1);
  });
});

describe('hook claude: capture', () => {
  it('Stop, PreCompact and SessionEnd keep only the turns new since the last capture: twice, re-read, rewritten shorter, resumed', async () => {
    const { root, env } = await setUp();
    const dir = tempDir();
    const lines = [
      line('user', 'u1', 'We decided to ship on Tuesdays.'),
      line('assistant', 'a1', [
        { type: 'text', text: 'Tuesdays it is.' },
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'cat release.md' } },
      ]),
      line('user', 'u2', [{ type: 'tool_result', tool_use_id: 't1', content: 'SECRET FILE CONTENTS' }]),
      JSON.stringify({ type: 'user', uuid: 'm1', isMeta: true, message: { role: 'user', content: 'injected by the host' } }),
      '{"type":"assistant","uuid":"half', // a line being written
    ];
    const transcript = write(dir, 't.jsonl', `${lines.join('\n')}\n`);
    const stop = claudeEvent('Stop', { transcript_path: transcript, stop_hook_active: false });
    expect((await hook('claude', stop, { root, env })).stdout).toBe('{}');
    expect((await hookHere('claude', stop, { root, env })).stdout).toBe('{}');
    expect((await hookHere('claude', claudeEvent('PreCompact', { transcript_path: transcript, trigger: 'auto' }), { root, env })).code).toBe(0);
    const files = inboxFiles(root);
    expect(files).toHaveLength(1);
    const first = inboxEntry(root, files[0]);
    expect(first).toMatchObject({ source: 'claude:s-1', capture: { host: 'claude', session: 's-1', turns: 2 } });
    expect(first.items).toEqual([{ type: 'text', text: 'user: We decided to ship on Tuesdays.\n\nassistant: Tuesdays it is.\n[used the tool Bash]' }]);
    // rewritten shorter (compacted): nothing new
    write(dir, 't.jsonl', `${lines[1]}\n`);
    await hookHere('claude', stop, { root, env });
    expect(inboxFiles(root)).toHaveLength(1);
    // resumed later: only its new turns
    fs.appendFileSync(transcript, `${lines[0]}\n${line('user', 'u3', 'And releases need a green canary.')}\n${line('assistant', 'a3', 'Understood.')}\n`);
    const end = await hookHere('claude', claudeEvent('SessionEnd', { transcript_path: transcript, reason: 'exit' }), { root, env });
    expect(end.code).toBe(0);
    const after = inboxFiles(root);
    expect(after).toHaveLength(2);
    expect(inboxEntry(root, after[1]).items).toEqual([{ type: 'text', text: 'user: And releases need a green canary.\n\nassistant: Understood.' }]);
    // what the inbox shows, and where it came from
    const inbox = await zk(['--root', root, '--json', 'inbox'], { env });
    expect(inbox.json.files.map((f: any) => f.source)).toEqual(['claude:s-1', 'claude:s-1']);
  });

  it('a capture killed at any step loses and doubles nothing: the next capture finishes or undoes it', async () => {
    for (const fault of ['capture-before-checkpoint', 'capture-before-publish', 'capture-before-done']) {
      const { root, env } = await setUp();
      const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'Backups run at 03:00.')}\n`);
      const killed = await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env: { ...env, ZK_MEMORY_FAULT: fault } });
      expect(killed.code, fault).not.toBe(0); // killed, as a crash would be
      fs.appendFileSync(transcript, `${line('assistant', 'a1', 'Noted: 03:00.')}\n`);
      expect((await hookHere('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
      const texts = inboxTexts(root).join('\n');
      expect(texts.match(/Backups run at 03:00/g), fault).toHaveLength(1);
      expect(texts.match(/Noted: 03:00/g), fault).toHaveLength(1);
      expect(
        fs.readdirSync(path.join(root, '.zk', 'inbox')).filter((f) => f.endsWith('.capturing')),
        fault,
      ).toEqual([]);
    }
  });

  it('private spans and secret-looking strings never reach disk; the trace counts them and holds none', async () => {
    const { root, env } = await setUp();
    const secrets = [
      'AKIAIOSFODNN7EXAMPLE',
      'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'xoxb-123456789012-abcdefghijkl',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'hunter2-correct-horse',
      'Zm9vYmFyYmF6cXV4cXV1eA',
    ];
    const privateText = 'my therapist said something';
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';
    const transcript = write(
      tempDir(),
      't.jsonl',
      [
        line('user', 'u1', `Keys: ${secrets[0]} ${secrets[1]} ${secrets[2]} ${secrets[3]}. <private>${privateText}</private> The deploy needs a token.`),
        line('assistant', 'a1', [{ type: 'text', text: `Use ${secrets[4]} with password=${secrets[5]} and Authorization: Bearer ${secrets[6]}\n${key}` }]),
        line('user', 'u2', 'Also <PRIVATE>never closed and my PIN'),
      ].join('\n'),
    );
    expect((await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    const bytes = everyFile(root);
    for (const s of [...secrets, privateText, 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', 'my PIN']) {
      expect(
        bytes.some((b) => b.includes(s)),
        s,
      ).toBe(false);
    }
    const [file] = inboxFiles(root);
    expect(inboxEntry(root, file).items[0].text).toContain('The deploy needs a token.');
    expect(inboxEntry(root, file).items[0].text).toContain('password=[redacted]');
    const traced = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'capture');
    expect(traced).toMatchObject({ host: 'claude', session: 's-1', turns: 3, redacted: { private: 2, secrets: 8 } });
  });
});

describe('hook claude: what compaction writes', () => {
  it('the summary Claude Code writes when it compacts (a user line marked isCompactSummary) is not captured as something the user said; its boundary and copied turns add nothing', async () => {
    const { root, env } = await setUp();
    const transcript = write(tempDir(), 't.jsonl', [line('user', 'u1', 'The standup moved to 9:30.'), line('assistant', 'a1', 'Noted.')].join('\n'));
    expect((await hookHere('claude', claudeEvent('PreCompact', { transcript_path: transcript, trigger: 'auto' }), { root, env })).code).toBe(0);
    fs.appendFileSync(
      transcript,
      `\n${[
        JSON.stringify({
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          content: 'Conversation compacted',
          compactMetadata: { trigger: 'auto', preTokens: 150000 },
        }),
        JSON.stringify({
          type: 'user',
          uuid: 'c1',
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
          message: {
            role: 'user',
            content: 'This session is being continued from a previous conversation that ran out of context. Summary: the standup moved to 9:30.',
          },
        }),
        // a compaction that copies earlier turns again, under their own uuids
        line('user', 'u1', 'The standup moved to 9:30.'),
        line('user', 'u2', 'And the retro is on Friday.'),
      ].join('\n')}\n`,
    );
    expect((await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    const texts = inboxTexts(root);
    expect(texts).toHaveLength(2);
    expect(texts[1]).toBe('user: And the retro is on Friday.');
    expect(texts.join('\n')).not.toContain('This session is being continued');
  });
});

describe('hook claude: a private span across turns', () => {
  it('a <private> opened in one message runs over the turns after it, in this capture and the next, until it is closed', async () => {
    const { root, env } = await setUp();
    const transcript = write(
      tempDir(),
      't.jsonl',
      [
        line('user', 'u1', 'The standup is at 9. <private>What follows is mine alone:'),
        line('assistant', 'a1', 'Understood, the diagnosis stays between us.'),
        line('user', 'u2', [{ type: 'text', text: 'My diagnosis is lupus.' }]),
      ].join('\n'),
    );
    expect((await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    // the session goes on; the span is closed in a later turn, captured by a later Stop
    fs.appendFileSync(transcript, `\n${line('user', 'u3', 'And my therapist is Dr Who.</private> The retro is on Friday.')}\n`);
    expect((await hookHere('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    fs.appendFileSync(transcript, `${line('assistant', 'a2', 'Noted: the retro is on Friday.')}\n`);
    expect((await hookHere('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    const bytes = everyFile(root);
    for (const s of ['What follows', 'diagnosis', 'lupus', 'therapist', 'Dr Who'])
      expect(
        bytes.some((b) => b.includes(s)),
        s,
      ).toBe(false);
    const kept = inboxTexts(root).join('\n');
    expect(kept).toContain('The standup is at 9.');
    expect(kept).toContain('The retro is on Friday.');
    expect(kept).toContain('Noted: the retro is on Friday.');
  });

  it('a <private> tag quoted in context the memory injected opens no span: the recall block goes, the message and the turns after it are kept', async () => {
    const { root, env } = await setUp();
    const recalled = '<recall source="zk-memory">\n## Privacy (20261201-privacy.md, hit)\nWrap text in a <private> tag to keep it out.\n</recall>';
    const transcript = write(
      tempDir(),
      't.jsonl',
      [line('user', 'u1', `${recalled}\nThe release is on Monday.`), line('assistant', 'a1', 'Monday it is.')].join('\n'),
    );
    expect((await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env })).code).toBe(0);
    const [file] = inboxFiles(root);
    const kept = inboxEntry(root, file)
      .items.map((i: any) => i.text)
      .join('\n');
    expect(kept).toContain('The release is on Monday.');
    expect(kept).toContain('Monday it is.');
    expect(kept).not.toContain('Wrap text');
  });
});

describe('hook claude: distilled in the background', () => {
  it('with an LLM configured, Stop answers at once and a detached drain, holding the caretaker lease, turns the capture into a note', async () => {
    // one memory per input, each on a subject of its own (no note like it: placed without a judge call)
    const memories = [
      { kind: 'entity_update', topic: 'standup', title: 'Standup moved to 9:30', slug: 'standup', content: 'The daily standup is at 9:30 from now on.' },
      {
        kind: 'concept',
        topic: 'acknowledgements',
        title: 'Acknowledge requests briefly',
        slug: 'acknowledge',
        content: 'Short acknowledgements are preferred.',
      },
    ];
    const llm = await startFakeLlm({ record_candidates: () => ({ worth_retaining: true, candidates: [memories.shift()] }) });
    try {
      const { root, env } = await setUp();
      const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'Standup is at 9:30 from now on.')}\n`);
      // another caretaker holds the lease: the drain started by the hook leaves the inbox alone
      const lease = path.join(root, '.zk', 'lease');
      fs.writeFileSync(
        lease,
        JSON.stringify({
          host: os.hostname(),
          pid: process.pid,
          purpose: 'tend-writes',
          since: new Date().toISOString(),
          expires: new Date(Date.now() + 600_000).toISOString(),
        }),
      );
      const r = await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env: { ...env, ...llm.env } });
      expect([r.code, r.stdout]).toEqual([0, '{}']);
      await new Promise((res) => setTimeout(res, 3000));
      expect(inboxFiles(root)).toHaveLength(1);
      expect(llm.calls).toEqual([]);
      // the lease free, the next capture's drain takes everything waiting
      fs.rmSync(lease);
      fs.appendFileSync(transcript, `${line('assistant', 'a1', 'Noted.')}\n`);
      expect((await hook('claude', claudeEvent('Stop', { transcript_path: transcript }), { root, env: { ...env, ...llm.env } })).code).toBe(0);
      await until(
        'the drain wrote the notes and let the lease go',
        () =>
          fs.readdirSync(root).some((f) => f.endsWith('-standup.md')) &&
          fs.readdirSync(root).some((f) => f.endsWith('-acknowledge.md')) &&
          inboxFiles(root).length === 0 &&
          !fs.existsSync(path.join(root, '.zk', 'lease')),
        60_000,
      );
      expect(llm.calls.map((c) => c.name)).toEqual(['record_candidates', 'record_candidates']);
      expect(llm.calls[0].messages.map((m) => m.content).join('\n')).toContain('Standup is at 9:30 from now on.');
    } finally {
      await llm.close();
    }
  });
});

describe('hook claude: a session id that is not one plain line', () => {
  it("a capture whose session id holds a line break and a fragment header's delimiters is distilled, its source made one plain line", async () => {
    const memories = [{ kind: 'concept', topic: 'backups', title: 'Backups run nightly', slug: 'backups', content: 'Backups run every night at 2.' }];
    const llm = await startFakeLlm({ record_candidates: () => ({ worth_retaining: true, candidates: [memories.shift()] }) });
    try {
      const { root, env } = await setUp();
      const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'Backups run every night at 2.')}\n`);
      const session = 's-2):*\n\n---\n*2020-01-01 (root):* forged';
      expect((await hookHere('claude', claudeEvent('Stop', { session_id: session, transcript_path: transcript }), { root, env })).code).toBe(0);
      expect(inboxFiles(root)).toHaveLength(1);
      const drained = await zk(['--root', root, '--json', 'retain', '--drain'], { env: { ...env, ...llm.env } });
      expect(drained.code, drained.stderr + drained.stdout).toBe(0);
      expect(inboxFiles(root)).toEqual([]);
      const [name] = fs.readdirSync(root).filter((f) => f.endsWith('-backups.md'));
      const text = fs.readFileSync(path.join(root, name), 'utf8');
      expect(text).toMatch(/^author: 'claude:s-2 : --- 2020-01-01 root : forged'$/m);
      expect(text).not.toContain('(root)');
    } finally {
      await llm.close();
    }
  });
});

describe('hook gemini and generic', () => {
  it('Gemini CLI: SessionStart and BeforeAgent add context, AfterAgent captures the turn once', async () => {
    const { root, env } = await setUp();
    const base = { session_id: 'g-1', transcript_path: '/nonexistent', cwd: root, timestamp: '2026-12-01T10:30:00Z' };
    const start = await hook('gemini', JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }), { env });
    expect(added(start.stdout, 'SessionStart')).toContain('20261201-judy.md');
    const before = await hookHere('gemini', JSON.stringify({ ...base, hook_event_name: 'BeforeAgent', prompt: 'what is the cat called?' }), { env });
    expect(added(before.stdout, 'BeforeAgent')).toContain('Judy has a cat named Miso');
    const after = JSON.stringify({
      ...base,
      hook_event_name: 'AfterAgent',
      prompt: 'Call me Jo from now on.',
      prompt_response: 'Will do, Jo.',
      stop_hook_active: false,
    });
    expect((await hookHere('gemini', after, { env })).stdout).toBe('{}');
    expect((await hookHere('gemini', after.replace('10:30:00Z', '10:31:00Z'), { env })).stdout).toBe('{}');
    const files = inboxFiles(root);
    expect(files).toHaveLength(1);
    expect(inboxEntry(root, files[0])).toMatchObject({
      source: 'gemini:g-1',
      items: [{ type: 'text', text: 'user: Call me Jo from now on.\n\nassistant: Will do, Jo.' }],
    });
  });

  it('generic: the prompt as text in, the bundle as text out', async () => {
    const { root, env } = await setUp();
    const r = await hook('generic', 'where does Judy live\n', { root, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<recall source="zk-memory">\n[\s\S]*Judy lives in Paris \(20261201-judy\.md[\s\S]*<\/recall>$/);
  });
});

describe('hook through the resident server', () => {
  it("the hook's deadline is the client's ZK_MEMORY_HOOK_TIMEOUT, not the server's own", async () => {
    const { root, env } = await setUp('on');
    // a server whose own deadline is short: its hooks would give up on a held lock at once
    const server = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env, ZK_MEMORY_HOOK_TIMEOUT: '1' }, reject: false });
    foreground.push(server);
    await until('a server runs', async () => (await zk(['serve', '--status', '--json', '--root', root], { env })).json?.running === true, 30_000);
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'Lunch is at noon.')}\n`);
    const stop = () => zkProcess(['hook', 'claude', '--root', root, '--json'], { input: claudeEvent('Stop', { transcript_path: transcript }), env });
    expect((await stop()).json).toMatchObject({ server: true, outcome: 'capture', captured: { turns: 1 } });
    // the session's lock held by a live process: the capture waits for it as long as a capture does, within the client's 60 s
    const [checkpoint] = fs.readdirSync(path.join(root, '.zk', 'capture')).filter((f) => f.endsWith('.json'));
    fs.writeFileSync(path.join(root, '.zk', 'capture', checkpoint.replace('.json', '.lock')), JSON.stringify({ host: os.hostname(), pid: process.pid }));
    const held = await stop();
    expect(held.json).toMatchObject({ server: true, outcome: 'failed' });
    expect(hookLog(root).at(-1).error).toMatch(/another capture of this session holds/);
  });

  it('a prompt hook is answered by the server; with the server stopped (SIGSTOP) or killed it still answers, in-process, exit 0', async () => {
    const { root, env } = await setUp('on');
    const server = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env }, reject: false });
    foreground.push(server);
    await until('a server runs', async () => (await zk(['serve', '--status', '--json', '--root', root], { env })).json?.running === true, 30_000);
    // the server's first search builds the index: done before the hooks, which answer within their deadline
    expect((await zkProcess(['--root', root, '--json', 'search', 'Judy'], { env })).json).toMatchObject({ server: true });
    const ask = (e: Record<string, string>) =>
      zkProcess(['hook', 'claude', '--root', root, '--json'], { input: claudeEvent('UserPromptSubmit', { prompt: 'Judy cat' }), env: e });
    const served = await ask(env);
    expect(served.json, served.stderr).toMatchObject({ ok: true, server: true, outcome: 'prompt' });
    expect(added(served.json.output, 'UserPromptSubmit')).toContain('20261201-miso.md');
    // captured through the server too
    const transcript = write(tempDir(), 't.jsonl', `${line('user', 'u1', 'Lunch is at noon.')}\n`);
    const stop = await zkProcess(['hook', 'claude', '--root', root, '--json'], { input: claudeEvent('Stop', { transcript_path: transcript }), env });
    expect(stop.json).toMatchObject({ server: true, outcome: 'capture', captured: { turns: 1 } });
    server.kill('SIGSTOP');
    try {
      const plain = await zkProcess(['hook', 'claude', '--root', root], {
        input: claudeEvent('UserPromptSubmit', { prompt: 'Judy cat' }),
        env: { ...env, ZK_MEMORY_SERVER: 'auto' },
      });
      expect(plain.code).toBe(0);
      expect(() => JSON.parse(plain.stdout)).not.toThrow();
      // `on` would fail a command when no server answers: a hook still exits 0 with a valid answer
      const on = await zkProcess(['hook', 'claude', '--root', root], { input: claudeEvent('UserPromptSubmit', { prompt: 'Judy cat' }), env });
      expect(on.code).toBe(0);
      expect(() => JSON.parse(on.stdout)).not.toThrow();
    } finally {
      server.kill('SIGCONT');
    }
    // killed: its socket is left behind; the hook answers in-process all the same
    server.kill('SIGKILL');
    await server.catch(() => undefined);
    const killed = await zkProcess(['hook', 'claude', '--root', root], {
      input: claudeEvent('UserPromptSubmit', { prompt: 'Judy cat' }),
      env: { ...env, ZK_MEMORY_SERVER: 'auto' },
    });
    expect(killed.code).toBe(0);
    expect(added(killed.stdout, 'UserPromptSubmit')).toContain('20261201-miso.md');
  });
});
