import { afterEach, describe, expect, it, vi } from 'vitest';
import { asZkError, EXIT, ZkError } from '../src/errors.js';
import { tempCorpus } from './helpers/corpus.js';

// A bug is not a busy corpus: scripts retry on exit 4, so a failure the tool did not expect of
// itself has a code and an exit of its own, and its stack goes to stderr for whoever reports it.

/** Run the command line in this process with an input that fails as `stdin` says. */
async function runWith(args: string[], stdin: () => string | undefined) {
  const { main } = await import('../src/cli.js');
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), stdin, cwd: () => process.cwd() };
  const code = await main(args, io, { ...process.env, ZK_MEMORY_DEBUG: '' });
  return { code, stdout, stderr };
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });

describe('asZkError', () => {
  it('calls a TypeError internal (exit 70), keeping it as the cause', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'path')");
    const e = asZkError(bug);
    expect(e).toBeInstanceOf(ZkError);
    expect([e.code, e.exitCode, e.message, e.cause]).toEqual(['internal', 70, "Cannot read properties of undefined (reading 'path')", bug]);
    expect(EXIT.internal).toBe(70);
  });

  it('keeps system errors io (exit 4), found on the error or on its cause', () => {
    for (const code of ['ENOENT', 'EACCES', 'ENOSPC', 'EIO', 'EMFILE']) expect(asZkError(Object.assign(new Error(code), { code })).code).toBe('io');
    expect(asZkError(enospc())).toMatchObject({ code: 'io', exitCode: 4, message: 'no space left on device' });
    // undici's `fetch failed` is a TypeError whose cause is the socket's error.
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(asZkError(refused).code).toBe('io');
    // A Node error code is not a system error: ERR_INVALID_ARG_TYPE is a bug.
    expect(asZkError(Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' })).code).toBe('internal');
  });

  it('leaves a ZkError as it is', () => {
    const busy = new ZkError('busy', 'corpus busy');
    expect(asZkError(busy)).toBe(busy);
  });
});

describe('the command line', () => {
  it('answers a bug with exit 70, its message on one line and its stack on stderr', async () => {
    const root = tempCorpus();
    const r = await runWith(['--root', root, 'write', 'judy', 'Judy', '-'], () => {
      throw new TypeError('stdin is not a function');
    });
    expect(r.code).toBe(70);
    expect(r.stdout).toBe('');
    const [first, second] = r.stderr.split('\n');
    expect(first).toBe('error: stdin is not a function');
    expect(second).toBe('TypeError: stdin is not a function');
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it('keeps --json one object on stdout, with code internal, and the stack on stderr', async () => {
    const root = tempCorpus();
    const r = await runWith(['--root', root, '--json', 'write', 'judy', 'Judy', '-'], () => {
      throw new TypeError('stdin is not a function');
    });
    expect(r.code).toBe(70);
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, error: { code: 'internal', message: 'stdin is not a function' }, server: false });
    expect(r.stderr).toMatch(/^TypeError: stdin is not a function\n\s+at /);
  });

  it('answers a full disk with exit 4 and no stack', async () => {
    const root = tempCorpus();
    const r = await runWith(['--root', root, 'write', 'judy', 'Judy', '-'], () => {
      throw enospc();
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: no space left on device\n');
  });
});

describe('an MCP tool call', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers a bug as internal, its stack on the process stderr and not in the answer', async () => {
    const { callTool } = await import('../src/mcp/server.js');
    const { Settings } = await import('../src/settings.js');
    const root = tempCorpus();
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((t: string | Uint8Array) => (written.push(String(t)), true));
    const io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => root };
    const resident = {
      caughtUp: () => {
        throw new TypeError('caughtUp is broken');
      },
    };
    const ctx = { settings: new Settings({}), io, resident } as unknown as Parameters<typeof callTool>[1];
    const r = await callTool(root, ctx, { id: 'session', serverStatus: async () => undefined } as unknown as Parameters<typeof callTool>[2], 'overview', {});
    expect(r).toMatchObject({ isError: true, structuredContent: { ok: false, error: { code: 'internal', message: 'caughtUp is broken' } } });
    expect(JSON.stringify(r)).not.toContain('    at ');
    expect(written.join('')).toMatch(/^TypeError: caughtUp is broken\n\s+at /);
  });
});

describe('library code outside a call', () => {
  it('fails loudly, as an internal error, rather than run without its ports', async () => {
    const { execa } = await import('execa');
    const { DIST } = await import('./helpers/corpus.js');
    const probe = `import('${DIST}/context.js').then((m) => { try { m.current(); console.log('no error'); } catch (e) { console.log(e.code + ': ' + e.message); } })`;
    const r = await execa('node', ['-e', probe], { reject: false });
    expect(r.stdout).toBe('internal: library code ran outside a call: run it through the package entry (src/index.ts) or withContext');
  });
});
