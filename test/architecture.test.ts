import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/corpus.js';

// How src/ is put together, checked: many calls run at once in one long-lived process, so library
// code must not change what the whole process shares (only the composition root, src/process.ts,
// and the entries that call it may), and the layers import one way only.

const ALLOWED = new Set(['src/process.ts']);
const PROCESS_STATE: [string, RegExp][] = [
  ['writes the environment', /process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)|Object\.assign\(\s*process\.env|delete\s+process\.env/],
  ['sets a V8 flag', /setFlagsFromString/],
  ['changes the module cache', /require\.cache|\.cache\[/],
  ['handles a process signal or event', /process\.(on|once|addListener|prependListener)\(/],
  ['changes the working folder or umask', /process\.(chdir|umask)\(/],
];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('process state', () => {
  it('is touched by the composition root only', () => {
    const found: string[] = [];
    for (const file of sources(path.join(REPO, 'src'))) {
      const rel = path.relative(REPO, file);
      if (ALLOWED.has(rel)) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const [what, re] of PROCESS_STATE) if (re.test(text)) found.push(`${rel} ${what}`);
    }
    expect(found).toEqual([]);
    // The check itself sees what it looks for.
    const root = fs.readFileSync(path.join(REPO, 'src', 'process.ts'), 'utf8');
    expect(PROCESS_STATE.filter(([, re]) => re.test(root)).map(([what]) => what)).toEqual([
      'writes the environment',
      'sets a V8 flag',
      'changes the module cache',
      'handles a process signal or event',
    ]);
  });
});

describe('module state', () => {
  it('is kept by no module but the set-up of the process and the lazily loaded validator: a worker runs many files, a server many calls', () => {
    // A module-level `let` is state every call of the process shares; the two allowed hold a flag
    // set once per process and a validator loaded on first use (a memo of a pure function).
    const kept = sources(path.join(REPO, 'src')).flatMap((file) => {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      return lines.flatMap((line, i) => (/^(export )?let /.test(line) ? [`${path.relative(REPO, file)}:${i + 1}`] : []));
    });
    expect(kept.map((at) => at.replace(/:\d+$/, ''))).toEqual(['src/process.ts', 'src/validate.ts']);
  });
});

describe('what a call remembers', () => {
  it('is shared by the contexts derived from the call, and new for each call', async () => {
    const { current, newCall, withContext } = await import('../src/context.js');
    const { warn } = await import('../src/corpus/warn.js');
    const { Settings } = await import('../src/settings.js');
    let stderr = '';
    const io = { stdout: () => {}, stderr: (t: string) => void (stderr += t), stdin: () => undefined, cwd: () => '/' };
    const ctx = { settings: new Settings({}), io };
    withContext(ctx, () => {
      warn('odd file');
      // A context derived inside the call (a commit's change recorder, a command's flags) is the same call.
      withContext({ ...current(), changes: { record: () => {} } }, () => warn('odd file'));
      withContext(newCall(current()), () => warn('odd file'));
    });
    withContext(ctx, () => warn('odd file'));
    expect(stderr.split('\n').filter(Boolean)).toEqual(['warning: odd file', 'warning: odd file', 'warning: odd file']);
  });
});

describe('the layers of src/', () => {
  it('import one way, with no cycle, type-only imports included (.dependency-cruiser.cjs)', async () => {
    const { execa } = await import('execa');
    const r = await execa('npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: REPO, reject: false });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no dependency violations found \(\d+ modules/);
  }, 60_000);

  it('keep each third-party package that reaches outside in the modules that wrap it: the rules see those modules', async () => {
    // The same rules with their allowed modules taken away must name exactly those modules: a rule
    // whose package the cruise never sees (a path that does not resolve, an includeOnly that drops it) would pass anything.
    const { execa } = await import('execa');
    const confined = ['lancedb-in-its-adapter-only', 'mcp-sdk-in-mcp-only', 'child-processes-in-adapters-only'];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-depcruise-'));
    const probe = path.join(dir, 'probe.cjs');
    fs.writeFileSync(
      probe,
      [
        `const base = require(${JSON.stringify(path.join(REPO, '.dependency-cruiser.cjs'))});`,
        `const names = ${JSON.stringify(confined)};`,
        'module.exports = { ...base, forbidden: base.forbidden.filter((r) => names.includes(r.name)).map((r) => ({ ...r, from: {} })) };',
      ].join('\n'),
    );
    try {
      const r = await execa('npx', ['depcruise', 'src', '--config', probe, '--output-type', 'json'], { cwd: REPO, reject: false });
      const found = (JSON.parse(r.stdout) as { summary: { violations: { rule: { name: string }; from: string }[] } }).summary.violations;
      const where = (rule: string) => [...new Set(found.filter((v) => v.rule.name === rule).map((v) => v.from))].sort();
      expect(where('lancedb-in-its-adapter-only')).toEqual(['src/search/ivf-build.ts', 'src/search/lance.ts']);
      expect(where('mcp-sdk-in-mcp-only')).toEqual([
        'src/api/oauth-store.ts',
        'src/mcp/modern.ts',
        'src/mcp/server.ts',
        'src/mcp/transport.ts',
        'src/server/mcp-requests.ts',
        'src/server/oauth.ts',
      ]);
      expect(where('child-processes-in-adapters-only')).toEqual(['src/adapters/git.ts', 'src/adapters/processes.ts', 'src/adapters/ripgrep.ts']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the size of src/', () => {
  it('has no file over 400 lines (a function over 100 is refused by the linter: biome.json)', () => {
    const long = sources(path.join(REPO, 'src'))
      .map((f) => [path.relative(REPO, f), fs.readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });
});
