import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mdFiles, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { mcpClient } from './helpers/mcp.js';
import { spool } from '../src/pipelines/inbox.js';

// The agent as the model: a captured session waits in the inbox, and the agent keeps it itself
// over MCP (inbox_next, write or merge, inbox_done or inbox_skip), the way ingest lets it study a
// document. And what a host's MCP entry writes is redacted (ZK_MEMORY_REDACT, set by setup).

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

const line = (type: 'user' | 'assistant', uuid: string, content: string) => JSON.stringify({ type, uuid, message: { role: type, content } });

/** A session captured by the Claude Code Stop hook into `root`'s inbox. */
async function capture(root: string, session: string, turns: [string, string]): Promise<void> {
  const transcript = write(tempDir(), 't.jsonl', `${line('user', `${session}-u`, turns[0])}\n${line('assistant', `${session}-a`, turns[1])}\n`);
  const input = JSON.stringify({ session_id: session, transcript_path: transcript, cwd: root, hook_event_name: 'Stop' });
  const r = await zkProcess(['hook', 'claude', '--root', root], { input, env: { ZK_MEMORY_HOOK_TIMEOUT: '60' } });
  expect([r.code, r.stdout]).toEqual([0, '{}']);
}

const trace = (root: string) =>
  fs
    .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('the inbox kept by the agent', () => {
  it('inbox_next takes the oldest input (again while held), write keeps it, inbox_done and inbox_skip set inputs aside; then done', async () => {
    const root = tempCorpus();
    await capture(root, 's-1', ['Our staging database is called orca.', 'Noted: staging is orca.']);
    await capture(root, 's-2', ['What a nice day.', 'Indeed.']);
    const call = await mcpClient(clients, root);
    const first = await call('inbox_next');
    expect(first.isError).toBe(false);
    expect(first.structuredContent).toMatchObject({
      ok: true,
      done: false,
      held: false,
      source: 'claude:s-1',
      remaining: 1,
      items: [{ type: 'text', text: expect.stringContaining('staging database is called orca') }],
    });
    expect(first.content[0].text).toMatch(/inbox_done \{"file":"\.zk\/inbox\/[^"]+\.json"\}/);
    const file = first.structuredContent.file;
    // held: shown again, not the next one; and no longer listed as waiting
    expect((await call('inbox_next')).structuredContent).toMatchObject({ held: true, file });
    expect((await call('inbox')).structuredContent.files.map((f: any) => f.source)).toEqual(['claude:s-2']);
    // a drain never takes a file an agent holds
    expect((await zk(['--root', root, '--json', 'inbox'])).json.files.map((f: any) => f.file)).not.toContain(file);
    const note = await call('write', { slug: 'staging-db', title: 'The staging database is called orca', body: 'Named in a session.' });
    expect(note.isError).toBe(false);
    const done = await call('inbox_done', { file });
    expect(done.structuredContent).toMatchObject({ ok: true, action: 'done', file, to: file.replace('inbox/', 'inbox/dismissed/') });
    expect(fs.existsSync(path.join(root, done.structuredContent.to))).toBe(true);
    const second = await call('inbox_next');
    expect(second.structuredContent).toMatchObject({ held: false, source: 'claude:s-2', remaining: 0 });
    const skipped = await call('inbox_skip', { file: second.structuredContent.file, reason: 'small talk' });
    expect(skipped.structuredContent).toMatchObject({ ok: true, action: 'skipped' });
    expect((await call('inbox_next')).structuredContent).toMatchObject({ ok: true, done: true });
    expect(
      trace(root)
        .filter((l) => l.event.startsWith('inbox_'))
        .map((l) => [l.event, l.reason]),
    ).toEqual([
      ['inbox_done', undefined],
      ['inbox_skip', 'small talk'],
    ]);
    // a file no longer waiting, or a path that is not an inbox file, is refused
    expect((await call('inbox_done', { file })).structuredContent.error.code).toBe('not_found');
    expect((await call('inbox_done', { file: '../../etc/passwd' })).structuredContent.error.code).toBe('invalid_ref');
    expect(mdFiles(root)).toHaveLength(1);
  });
});

describe("redaction of what a host's MCP entry writes", () => {
  it('with ZK_MEMORY_REDACT=1, write and merge lose private spans and secrets before anything is written; the trace counts them', async () => {
    const root = tempCorpus();
    const call = await mcpClient(clients, root, { ZK_MEMORY_REDACT: '1' });
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const w = await call('write', { slug: 'deploy', title: 'How deploys work', body: `Push with ${secret}. <private>my salary</private>Then wait.` });
    expect(w.isError).toBe(false);
    await call('merge', { ref: 'deploy', fragment: 'Later: password: "correct horse battery"' });
    const text = fs.readFileSync(path.join(root, mdFiles(root)[0]), 'utf8');
    expect(text).toContain('Push with [redacted]. Then wait.');
    expect(text).toContain('password: [redacted]');
    for (const b of [secret, 'my salary', 'correct horse'])
      expect(
        fs.readdirSync(root, { recursive: true }).some((f) => {
          const p = path.join(root, String(f));
          return fs.statSync(p).isFile() && fs.readFileSync(p).includes(b);
        }),
        b,
      ).toBe(false);
    expect(trace(root).filter((l) => l.event === 'redact')).toEqual([
      expect.objectContaining({ tool: 'write', private: 1, secrets: 1 }),
      expect.objectContaining({ tool: 'merge', private: 0, secrets: 1 }),
    ]);
  });

  it('with ZK_MEMORY_REDACT=1, a document studied with ingest_start and the notes kept with ingest_accept lose private spans and secrets too', async () => {
    const root = tempCorpus();
    const call = await mcpClient(clients, root, { ZK_MEMORY_REDACT: '1' });
    const secret = 'AKIAQWERTYUIOPASDFGH';
    const started = await call('ingest_start', {
      text: `# Runbook\n\nDeploy with the key ${secret}. <private>The on-call phone is 555-0199.</private> Then watch the dashboards.\n`,
      name: 'runbook.md',
    });
    expect(started.isError, JSON.stringify(started)).toBe(false);
    const next = await call('ingest_next');
    expect(next.isError, JSON.stringify(next)).toBe(false);
    const accepted = await call('ingest_accept', {
      title: 'Deploy runbook',
      body: `Deploys use the key ${secret} and are watched on the dashboards. <private>Call 555-0199.</private>`,
    });
    expect(accepted.isError, JSON.stringify(accepted)).toBe(false);
    for (const b of [secret, '555-0199'])
      expect(
        fs.readdirSync(root, { recursive: true }).some((f) => {
          const p = path.join(root, String(f));
          return fs.lstatSync(p).isFile() && fs.readFileSync(p).includes(b);
        }),
        b,
      ).toBe(false);
    expect(fs.readFileSync(path.join(root, mdFiles(root)[0]), 'utf8')).toContain('Deploys use the key [redacted] and are watched on the dashboards.');
  });

  it('with ZK_MEMORY_REDACT=1, the reason given to archive or inbox_skip reaches the trace redacted', async () => {
    const root = tempCorpus();
    const call = await mcpClient(clients, root, { ZK_MEMORY_REDACT: '1' });
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    expect((await call('write', { slug: 'leak', title: 'Leak', body: 'Nothing secret here.' })).isError).toBe(false);
    const archived = await call('archive', { ref: 'leak', reason: `it named the token ${secret}` });
    expect(archived.isError, JSON.stringify(archived)).toBe(false);
    spool(root, [{ type: 'text', text: 'a waiting input' }], { reason: 'waits' });
    const next = await call('inbox_next');
    const skipped = await call('inbox_skip', { file: next.structuredContent.file, reason: `holds only ${secret}` });
    expect(skipped.isError, JSON.stringify(skipped)).toBe(false);
    const traced = fs.readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8');
    expect(traced).toContain('it named the token [redacted]');
    expect(traced).toContain('holds only [redacted]');
    expect(traced).not.toContain(secret);
  });

  it('without it, a write is stored as given', async () => {
    const root = tempCorpus();
    const call = await mcpClient(clients, root);
    await call('write', { slug: 'tags', title: 'Private tags', body: 'The <private> tag marks text hosts keep out of memory.' });
    expect(fs.readFileSync(path.join(root, mdFiles(root)[0]), 'utf8')).toContain('The <private> tag marks');
  });
});
