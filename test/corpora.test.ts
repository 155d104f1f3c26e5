import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, tempDir, zk } from './helpers/corpus.js';

// Corpora by name (docs/configuration.md#corpora-by-name): `corpus add|list|remove` keep a small
// registry in the user's config folder, and every command takes `--corpus NAME` where it takes
// `--root DIR`. Each test has a config folder of its own.

/** A config folder of the test's own, as the environment of the commands it runs. */
function configEnv(): Record<string, string> {
  return { XDG_CONFIG_HOME: tempDir('zk-config-') };
}

describe('corpora by name', () => {
  it('corpus add, list and remove keep names in a 0600 file of the config folder, replaced whole; bad names, taken names and folders that are no corpus are refused', async () => {
    const env = configEnv();
    const a = tempCorpus();
    const b = tempCorpus();
    expect((await zk(['--json', 'corpus', 'list'], { env })).json).toEqual({ ok: true, corpora: [] });
    expect((await zk(['--json', 'corpus', 'add', 'personal', a], { env })).json).toEqual({ ok: true, added: { name: 'personal', root: fs.realpathSync(a) } });
    const rel = await zk(['--json', 'corpus', 'add', 'team', path.basename(b)], { env, cwd: path.dirname(b) });
    expect(rel.json.added).toEqual({ name: 'team', root: fs.realpathSync(b) });
    const file = path.join(env.XDG_CONFIG_HOME, 'zk-memory', 'corpora.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      corpora: [
        { name: 'personal', root: fs.realpathSync(a) },
        { name: 'team', root: fs.realpathSync(b) },
      ],
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // nothing but the file (no temp file left beside it; the lock is released)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['corpora.json']);

    const taken = await zk(['--json', 'corpus', 'add', 'personal', b], { env });
    expect([taken.code, taken.json.error.code]).toEqual([1, 'exists']);
    const twice = await zk(['--json', 'corpus', 'add', 'again', a], { env });
    expect([twice.code, twice.json.error.message]).toEqual([1, `${fs.realpathSync(a)} is registered already, as personal`]);
    const bad = await zk(['--json', 'corpus', 'add', '../x', a], { env });
    expect([bad.code, bad.json.error.code]).toEqual([2, 'usage']);
    const notCorpus = await zk(['--json', 'corpus', 'add', 'empty', tempDir()], { env });
    expect([notCorpus.code, notCorpus.json.error.code]).toEqual([2, 'no_root']);

    expect((await zk(['--json', 'corpus', 'remove', 'personal'], { env })).json.removed).toEqual({ name: 'personal', root: fs.realpathSync(a) });
    expect(fs.existsSync(path.join(a, '.zk'))).toBe(true);
    const gone = await zk(['--json', 'corpus', 'remove', 'personal'], { env });
    expect([gone.code, gone.json.error.code]).toEqual([1, 'not_found']);
    expect((await zk(['corpus', 'list'], { env })).stdout).toBe(`team  ${fs.realpathSync(b)}`);
  });

  it('--corpus NAME names the corpus of any command, as --root does; an unknown name, or --root beside it, is a usage error', async () => {
    const env = configEnv();
    const a = tempCorpus();
    const b = tempCorpus();
    await zk(['corpus', 'add', 'alpha', a], { env });
    await zk(['corpus', 'add', 'beta', b], { env });
    const w = await zk(['--corpus', 'beta', '--json', 'write', 'otters', 'Otters hold hands', 'while asleep'], { env });
    expect(w.code).toBe(0);
    expect(fs.readdirSync(b).filter((f) => f.endsWith('.md'))).toHaveLength(1);
    expect(fs.readdirSync(a).filter((f) => f.endsWith('.md'))).toEqual([]);
    // after the command too, and with =
    const listed = await zk(['list', '--json', '--corpus=beta'], { env });
    expect(listed.json.notes.map((n: any) => n.title)).toEqual(['Otters hold hands']);
    expect((await zk(['list', '--json', '--corpus', 'alpha'], { env })).json.notes).toEqual([]);

    const unknown = await zk(['--json', '--corpus', 'gamma', 'list'], { env });
    expect([unknown.code, unknown.json.error.message]).toEqual([
      2,
      'no corpus is registered as "gamma" (zk-memory corpus list shows them; corpus add NAME DIR adds one)',
    ]);
    const both = await zk(['--json', '--corpus', 'alpha', '--root', a, 'list'], { env });
    expect([both.code, both.json.error.message]).toEqual([2, '--root and --corpus both name the corpus: give one of them']);
    const two = await zk(['--json', '--corpus', 'alpha', '--corpus', 'beta', 'list'], { env });
    expect([two.code, two.json.error.code]).toEqual([2, 'usage']);
  });

  it('a registry another user could change is refused: it decides what a name opens', async () => {
    const env = configEnv();
    const a = tempCorpus();
    await zk(['corpus', 'add', 'alpha', a], { env });
    const file = path.join(env.XDG_CONFIG_HOME, 'zk-memory', 'corpora.json');
    fs.chmodSync(file, 0o666);
    const r = await zk(['--json', '--corpus', 'alpha', 'list'], { env });
    expect([r.code, r.json.error.message]).toEqual([
      4,
      `${file} is not this user's own, or others may write it: mend it or remove it and add the corpora again`,
    ]);
    fs.chmodSync(file, 0o600);
    fs.writeFileSync(file, '{"corpora": [{"name": "x", "root": "relative"}]}');
    expect((await zk(['--json', 'corpus', 'list'], { env })).json.error.message).toBe(`${file} is damaged: mend it or remove it and add the corpora again`);
  });
});
