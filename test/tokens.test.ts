import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenHolder } from '../src/api/tokens.js';
import { tokenStoreFile } from '../src/api/token-store.js';
import { tempCorpus, zk } from './helpers/corpus.js';
import { git, gitHosts } from './helpers/git-hosts.js';

// Where HTTP tokens are kept (docs/http.md#tokens): outside the corpus, so nothing that arrives in
// it (a pushed, copied or checked-out `.zk/tokens.json`) lets anyone in; tokens an older version
// kept in `.zk/tokens.json` on this host are moved out by the next `token` command.

/** A token file as an older version wrote it, granting `token` read-write as `name`. */
function corpusTokenFile(root: string, token: string, name: string): string {
  const file = path.join(root, '.zk', 'tokens.json');
  const sha256 = crypto.createHash('sha256').update(token).digest('hex');
  fs.writeFileSync(file, JSON.stringify([{ name, read_only: false, created: '2026-12-01T00:00:00.000Z', sha256 }]), { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

describe('the token store', () => {
  it("a .zk/tokens.json that came by git (a plain pull, past sync) lets no one in, even 0600 and the user's own", async () => {
    const {
      clones: [a, b],
    } = await gitHosts(2);
    const stolen = 'zkm_pushed-by-someone-who-can-push-to-the-remote-00000';
    corpusTokenFile(a, stolen, 'intruder');
    await git(a, 'add', '-f', '.zk/tokens.json');
    await git(a, 'commit', '-q', '-m', 'a token for me');
    await git(a, 'push', '-q', 'origin', 'main');
    await git(b, 'pull', '-q', '--no-rebase', 'origin', 'main');
    const pulled = path.join(b, '.zk', 'tokens.json');
    fs.chmodSync(pulled, 0o600);
    expect(tokenHolder(b, stolen)).toBeUndefined();
    const list = await zk(['--root', b, '--json', 'token', 'list']);
    expect(list.json).toEqual({ ok: true, tokens: [] });
    expect(list.stderr).toContain('warning: .zk/tokens.json is tracked by git (it may have come from a remote): its tokens are not honoured');
    expect(tokenHolder(b, stolen)).toBeUndefined();
    expect(fs.existsSync(pulled)).toBe(true);
  });

  it('tokens an older version kept in the corpus on this host keep working: the next token command moves them out', async () => {
    const root = tempCorpus();
    const token = 'zkm_made-here-by-an-older-version-000000000000000000000';
    const legacy = corpusTokenFile(root, token, 'laptop');
    const list = await zk(['--root', root, '--json', 'token', 'list']);
    expect(list.json.tokens.map((t: any) => t.name)).toEqual(['laptop']);
    expect(fs.existsSync(legacy)).toBe(false);
    expect(tokenHolder(root, token)).toMatchObject({ name: 'laptop', read_only: false });
    const store = tokenStoreFile(root);
    expect(path.relative(root, store).startsWith('..')).toBe(true);
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(store, 'utf8')).corpus).toBe(fs.realpathSync(root));
    // one open to others is not taken, and not read
    const other = tempCorpus();
    fs.chmodSync(corpusTokenFile(other, token, 'laptop'), 0o644);
    expect((await zk(['--root', other, '--json', 'token', 'list'])).json.tokens).toEqual([]);
    expect(tokenHolder(other, token)).toBeUndefined();
  });

  it('a store file open to others is refused, not read', async () => {
    const root = tempCorpus();
    expect((await zk(['--root', root, '--json', 'token', 'create', 'laptop'])).code).toBe(0);
    fs.chmodSync(tokenStoreFile(root), 0o644);
    const r = await zk(['--root', root, '--json', 'token', 'list']);
    expect(r.code).toBe(4);
    expect(r.json.error.message).toBe(`${tokenStoreFile(root)} is not this user's own with mode 0600: remove it and make the tokens again`);
  });
});
