import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir, zk } from './helpers/corpus.js';

// The README is a guide people follow by copying its shell blocks. These tests run every block
// that needs no LLM or embeddings endpoint, in order, against a temp folder standing for `~`, and
// check that each command exits as the README says: 0, or the `exits N` its comment names.

const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const CLI_DOC = fs.readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8');

/** The bodies of the ```sh blocks of a Markdown text, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** Blocks that need a model, an endpoint or the network, or set up the clone itself. */
const NEEDS_MORE = /\b(integrate|retain|tend-writes|split|mcp)\b|ZK_MEMORY_(LLM|EMBED)_|^\s*npm\b/m;

interface Word {
  text: string;
  quoted: boolean;
}

/** Split one command line as a POSIX shell would for the simple forms the README uses. */
function words(line: string): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < line.length) {
    if (/\s/.test(line[i])) {
      i++;
      continue;
    }
    if (line[i] === '#') break; // a comment runs to the end of the line
    if (line[i] === '|') {
      out.push({ text: '|', quoted: false });
      i++;
      continue;
    }
    let text = '';
    let quoted = false;
    while (i < line.length && !/\s/.test(line[i]) && line[i] !== '|') {
      const c = line[i];
      if (c === "'") {
        const end = line.indexOf("'", i + 1);
        text += line.slice(i + 1, end);
        i = end + 1;
        quoted = true;
      } else if (c === '"') {
        i++;
        while (line[i] !== '"') {
          if (line[i] === '\\' && /["\\$`]/.test(line[i + 1])) i++;
          text += line[i++];
        }
        i++;
        quoted = true;
      } else {
        text += c;
        i++;
      }
    }
    out.push({ text, quoted });
  }
  return out;
}

/** Logical lines of a block: continuations joined, blank lines dropped. */
function commands(block: string): string[] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
}

/** The exit a command's comment announces (`… exits 1`), else 0. */
function expectedExit(line: string): number {
  const comment = line.match(/\s#\s(.*)$/)?.[1] ?? '';
  const m = comment.match(/\bexits? (\d)\b/);
  return m ? Number(m[1]) : 0;
}

interface Shell {
  home: string;
  cwd: string;
}

/** Run one command line of the README, in-process; answers its exit code and output. */
async function run(line: string, sh: Shell) {
  const expand = (w: Word) => (!w.quoted && w.text.startsWith('~') ? sh.home + w.text.slice(1) : w.text);
  let ws = words(line).map((w) => ({ ...w, text: expand(w) }));
  if (ws[0]?.text === 'cd') {
    sh.cwd = path.resolve(sh.cwd, ws[1].text);
    return { code: 0, stdout: '', stderr: '' };
  }
  let input: string | undefined;
  const pipe = ws.findIndex((w) => w.text === '|' && !w.quoted);
  if (pipe >= 0) {
    const producer = ws.slice(0, pipe);
    if (producer[0]?.text !== 'echo') throw new Error(`cannot run this pipe: ${line}`);
    input = `${producer
      .slice(1)
      .map((w) => w.text)
      .join(' ')}\n`;
    ws = ws.slice(pipe + 1);
  }
  const env: Record<string, string> = {};
  while (ws.length && /^[A-Z_]+=/.test(ws[0].text)) {
    const [k, ...v] = ws.shift()!.text.split('=');
    env[k] = v.join('=');
  }
  if (ws[0]?.text !== 'zk-memory') throw new Error(`not a zk-memory command: ${line}`);
  return zk(
    ws.slice(1).map((w) => w.text),
    { cwd: sh.cwd, input, env: { HOME: sh.home, XDG_CACHE_HOME: path.join(sh.home, '.cache'), ...env } },
  );
}

describe('the README', () => {
  it('is a guide of at most about 300 lines that keeps the set-up commands CI relies on', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
    expect(README).toContain('npm ci && npm run example');
    expect(README).toMatch(/^npm test$/m);
    expect(README).not.toMatch(/npm install (--global|-g) zk-memory/);
  });

  it('links to every page under docs/', () => {
    for (const page of fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md'))) {
      expect(README, page).toContain(page === 'README.md' ? 'docs/README.md' : `docs/${page}`);
    }
  });

  it('every shell block that needs no LLM runs as written, in order, and exits as documented', async () => {
    const sh: Shell = { home: tempDir('zk-readme-'), cwd: '' };
    sh.cwd = sh.home;
    const runnable = shellBlocks(README).filter((b) => !NEEDS_MORE.test(b));
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    for (const block of runnable) {
      for (const line of commands(block)) {
        const r = await run(line, sh);
        expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: expectedExit(line), stderr: expect.any(String) });
      }
    }
    // The tour leaves what it says: the note, its successor, the archived slip, and the two team leads.
    const root = path.join(sh.home, 'memory');
    expect(
      fs
        .readdirSync(root)
        .filter((f) => f.endsWith('.md'))
        .map((f) => f.slice(9))
        .sort(),
    ).toEqual(['judy-paris.md', 'judy.md', 'team-lead.md', 'team-lead.md']);
    // And the answers about 15 March are the ones its comments give.
    const asked = async (flag: string) =>
      (await zk(['--root', root, '--json', 'search', 'who leads the team', flag, '2026-03-15'])).json.hits.map((h: any) => [h.title, Boolean(h.superseded_by)]);
    expect(await asked('--as-of')).toEqual([['Ana leads the team', false]]);
    expect(await asked('--valid-at')).toEqual([['Ana leads the team', true]]);
    expect(fs.readdirSync(path.join(root, '.archive')).map((f) => f.slice(9))).toEqual(['typo.md']);
  });

  it('names only commands that exist, in its blocks and in the command reference', async () => {
    const named = new Set<string>();
    for (const block of [...shellBlocks(README), ...shellBlocks(CLI_DOC)]) {
      for (const m of block.matchAll(/\bzk-memory ([a-z][a-z-]*)/g)) named.add(m[1]);
    }
    expect(named.size).toBeGreaterThan(10);
    for (const command of named) {
      const r = await zk([command, '--help']);
      expect({ command, code: r.code }).toEqual({ command, code: 0 });
    }
  });
});
