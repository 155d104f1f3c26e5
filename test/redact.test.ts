import { describe, expect, it } from 'vitest';
import { redact, redactDeep } from '../src/pipelines/redact.js';
import { MAX_HOOK_CONTEXT_CHARS, recallBlock } from '../src/api/hook.js';

// What must never be stored (src/pipelines/redact.ts): the one module every path from an agent
// host goes through. The end-to-end checks (a captured transcript searched byte by byte, MCP
// writes) are in test/hook.test.ts and test/inbox-agent.test.ts.

describe('redact', () => {
  it('drops private spans, closed or left open, and counts them', () => {
    expect(redact('a <private>x\ny</private> b <PRIVATE reason="health">z</Private > c')).toEqual({
      text: 'a  b  c',
      redactions: { private: 2, secrets: 0 },
      open: false,
    });
    expect(redact('kept <private>never closed, to the end')).toEqual({ text: 'kept ', redactions: { private: 1, secrets: 0 }, open: true });
  });

  it('continues a span an earlier text left open, up to its first closing tag', () => {
    expect(redact('still mine</private> public <private>again', { inPrivate: true })).toEqual({
      text: ' public ',
      redactions: { private: 2, secrets: 0 },
      open: true,
    });
    expect(redact('all of it mine', { inPrivate: true })).toEqual({ text: '', redactions: { private: 1, secrets: 0 }, open: true });
    expect(redact('closed</private> then <private>a</private> b', { inPrivate: true })).toEqual({
      text: ' then  b',
      redactions: { private: 2, secrets: 0 },
      open: false,
    });
  });

  it('replaces each kind of secret, keeping the name of an assignment or a bearer', () => {
    const cases: [string, string][] = [
      ['key AKIAIOSFODNN7EXAMPLE here', 'key [redacted] here'],
      ['OPENAI=sk-proj-abcdefghijklmnopqrstuv', 'OPENAI=[redacted]'],
      ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[redacted]'],
      ['xoxp-1234-5678-abcdefghij', '[redacted]'],
      ['AIzaSyA1234567890abcdefghijklmnopqrstuv', '[redacted]'],
      ['"Authorization": "Bearer abc.def-ghi_jkl"', '"Authorization": "Bearer [redacted]"'],
      ['password="two words"; user=bob', 'password=[redacted]; user=bob'],
      ['API_KEY: abc123xyz', 'API_KEY: [redacted]'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter', '[redacted]\nafter'],
    ];
    for (const [input, output] of cases) expect(redact(input).text, input).toBe(output);
    expect(redact('password=sk-proj-abcdefghijklmnopqrstuv').redactions).toEqual({ private: 0, secrets: 1 });
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'the password policy asks for 12 characters',
      'scikit-learn and task-management-systems',
      'Bearer of bad news',
      'ssh-keygen -t ed25519',
    ]) {
      expect(redact(text), text).toEqual({ text, redactions: { private: 0, secrets: 0 }, open: false });
    }
  });

  it('redacts every string of structured input and sums the counts', () => {
    const r = redactDeep({
      title: 'Deploy',
      body: 'token sk-abcdefghijklmnopqrstuvwx',
      messages: [{ role: 'user', content: '<private>no</private>yes' }],
      n: 3,
    });
    expect(r).toEqual({
      value: { title: 'Deploy', body: 'token [redacted]', messages: [{ role: 'user', content: 'yes' }], n: 3 },
      redactions: { private: 1, secrets: 1 },
    });
  });
});

describe('recallBlock', () => {
  it("never passes the host's limit: a long bundle is cut at a line and marked", () => {
    const long = Array.from({ length: 2000 }, (_, i) => `line ${i} of a long note`).join('\n');
    const block = recallBlock(long);
    expect(block.length).toBeLessThanOrEqual(MAX_HOOK_CONTEXT_CHARS);
    expect(block).toMatch(/^<recall source="zk-memory">\nline 0 [\s\S]*\n…\n<\/recall>$/);
  });
});
