import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, zkProcess } from './helpers/corpus.js';

// `zk-memory setup HOST` with HOME pointed at a temp folder: it merges the MCP server entry and the
// hooks into the host's settings, keeps everything else, changes nothing a second time, and
// `--remove` takes out exactly what it added.

/** A home, a project and a corpus, and a way to run setup in them. */
function place() {
  const home = tempDir('zk-home-');
  const project = tempDir('zk-project-');
  const root = fs.realpathSync(tempCorpus());
  const setup = (...args: string[]) => zkProcess(['setup', ...args, '--root', root, '--json'], { env: { HOME: home }, cwd: project });
  return { home, project, root, setup };
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};

const unrelated = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard' }] }],
  },
};

describe('setup claude', () => {
  it('user scope: hooks in ~/.claude/settings.json beside the ones there, the MCP server in ~/.claude.json; again changes nothing; --remove restores both', async () => {
    const { home, root, setup } = place();
    const settings = path.join(home, '.claude', 'settings.json');
    const claudeJson = path.join(home, '.claude.json');
    writeJson(settings, unrelated);
    writeJson(claudeJson, { numStartups: 3, mcpServers: { other: { command: 'other-server' } }, projects: { '/x': { allowedTools: [] } } });
    const before = { settings: fs.readFileSync(settings, 'utf8'), claudeJson: fs.readFileSync(claudeJson, 'utf8') };

    const r = await setup('claude');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.files).toEqual([
      { file: settings, action: 'updated', changes: ['hooks.SessionStart', 'hooks.UserPromptSubmit', 'hooks.PreCompact', 'hooks.Stop', 'hooks.SessionEnd'] },
      { file: claudeJson, action: 'updated', changes: ['mcpServers.zk-memory'] },
    ]);
    const s = readJson(settings);
    const command = `${process.execPath} ${fs.realpathSync(BIN)} hook claude --root ${root}`;
    expect(s.model).toBe('opus');
    expect(s.permissions).toEqual(unrelated.permissions);
    expect(s.hooks.PreToolUse).toEqual(unrelated.hooks.PreToolUse);
    expect(s.hooks.Stop).toEqual([...unrelated.hooks.Stop, { hooks: [{ type: 'command', command, timeout: 5 }] }]);
    expect(s.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command, timeout: 5 }] }]);
    const c = readJson(claudeJson);
    expect(c).toMatchObject({ numStartups: 3, projects: { '/x': { allowedTools: [] } } });
    expect(c.mcpServers).toEqual({
      other: { command: 'other-server' },
      'zk-memory': {
        type: 'stdio',
        command: process.execPath,
        args: [fs.realpathSync(BIN), 'mcp', '--root', root],
        env: { ZK_MEMORY_REDACT: '1', ZK_MEMORY_SOURCE: 'claude' },
      },
    });
    // every path written is absolute
    for (const p of [process.execPath, ...c.mcpServers['zk-memory'].args.filter((a: string) => a.includes('/'))]) expect(path.isAbsolute(p)).toBe(true);

    const again = await setup('claude');
    expect(again.json.files.map((f: any) => f.action)).toEqual(['unchanged', 'unchanged']);

    const removed = await setup('claude', '--remove');
    expect(removed.json.files.map((f: any) => [f.action, f.changes.length])).toEqual([
      ['updated', 5],
      ['updated', 1],
    ]);
    expect(readJson(settings)).toEqual(JSON.parse(before.settings));
    expect(readJson(claudeJson)).toEqual(JSON.parse(before.claudeJson));
    expect((await setup('claude', '--remove')).json.files.map((f: any) => f.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('run again after node or the tool moved (a node upgrade, a new install): the hooks it wrote before are replaced, not doubled; --remove takes out those too', async () => {
    const { home, root, setup } = place();
    const settings = path.join(home, '.claude', 'settings.json');
    writeJson(settings, unrelated);
    expect((await setup('claude')).code).toBe(0);
    // as an older install wrote it: other absolute paths for node and the tool
    const command = `${process.execPath} ${fs.realpathSync(BIN)} hook claude --root ${root}`;
    const old = `/opt/node-18/bin/node /opt/old/lib/node_modules/zk-memory/bin/zk-memory.js hook claude --root ${root}`;
    fs.writeFileSync(settings, fs.readFileSync(settings, 'utf8').replaceAll(command, old));
    // a hook of another corpus is not this set-up's
    const other = `/opt/node-18/bin/node /opt/old/lib/node_modules/zk-memory/bin/zk-memory.js hook claude --root ${root}-other`;
    const s0 = readJson(settings);
    s0.hooks.Stop.push({ hooks: [{ type: 'command', command: other, timeout: 5 }] });
    writeJson(settings, s0);

    const r = await setup('claude');
    expect(r.json.files[0]).toMatchObject({
      action: 'updated',
      changes: ['hooks.SessionStart', 'hooks.UserPromptSubmit', 'hooks.PreCompact', 'hooks.Stop', 'hooks.SessionEnd'],
    });
    const s = readJson(settings);
    expect(s.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command, timeout: 5 }] }]);
    expect(s.hooks.Stop).toEqual([
      ...unrelated.hooks.Stop,
      { hooks: [{ type: 'command', command, timeout: 5 }] },
      { hooks: [{ type: 'command', command: other, timeout: 5 }] },
    ]);
    expect((await setup('claude')).json.files[0].action).toBe('unchanged');

    // --remove on what the older install wrote takes it out as well
    fs.writeFileSync(settings, fs.readFileSync(settings, 'utf8').replaceAll(command, old));
    expect((await setup('claude', '--remove')).json.files[0].changes).toHaveLength(5);
    const left = readJson(settings);
    expect(left.hooks.Stop).toEqual([...unrelated.hooks.Stop, { hooks: [{ type: 'command', command: other, timeout: 5 }] }]);
    expect(left.hooks.SessionStart).toBeUndefined();
  });

  it('keeps what the user added to its MCP entry (the LLM settings in its env) when run again, also after node moved; --remove takes the entry out all the same', async () => {
    const { home, root, setup } = place();
    const claudeJson = path.join(home, '.claude.json');
    writeJson(claudeJson, { numStartups: 3 });
    expect((await setup('claude')).code).toBe(0);
    const c = readJson(claudeJson);
    const llm = { ZK_MEMORY_LLM_BASE: 'http://127.0.0.1:8080/v1', ZK_MEMORY_LLM_MODEL: 'local' };
    Object.assign(c.mcpServers['zk-memory'].env, llm);
    writeJson(claudeJson, c);
    expect((await setup('claude')).json.files[1]).toMatchObject({ action: 'unchanged' });
    expect(readJson(claudeJson).mcpServers['zk-memory'].env).toEqual({ ZK_MEMORY_REDACT: '1', ZK_MEMORY_SOURCE: 'claude', ...llm });
    // an older node: brought up to date, the user's settings kept
    c.mcpServers['zk-memory'].command = '/opt/node-18/bin/node';
    writeJson(claudeJson, c);
    expect((await setup('claude')).json.files[1]).toMatchObject({ action: 'updated', changes: ['mcpServers.zk-memory'] });
    expect(readJson(claudeJson).mcpServers['zk-memory']).toMatchObject({ command: process.execPath, env: { ZK_MEMORY_REDACT: '1', ...llm } });
    expect((await setup('claude', '--remove')).json.files[1]).toMatchObject({ action: 'updated', changes: ['mcpServers.zk-memory'] });
    expect(readJson(claudeJson)).toEqual({ numStartups: 3 });
  });

  it('project and local scopes: .claude/settings.json and .mcp.json, .claude/settings.local.json and the project in ~/.claude.json; files it made alone are removed again', async () => {
    const { home, project, root, setup } = place();
    const realProject = fs.realpathSync(project);
    expect((await setup('claude', '--scope', 'project')).code).toBe(0);
    expect(Object.keys(readJson(path.join(project, '.claude', 'settings.json')).hooks)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreCompact',
      'Stop',
      'SessionEnd',
    ]);
    expect(readJson(path.join(project, '.mcp.json')).mcpServers['zk-memory'].args).toEqual([fs.realpathSync(BIN), 'mcp', '--root', root]);
    expect((await setup('claude', '--scope', 'local')).code).toBe(0);
    expect(Object.keys(readJson(path.join(project, '.claude', 'settings.local.json')).hooks)).toHaveLength(5);
    expect(Object.keys(readJson(path.join(home, '.claude.json')).projects)).toEqual([realProject]);
    for (const scope of ['project', 'local']) {
      const r = await setup('claude', '--scope', scope, '--remove');
      expect(
        r.json.files.map((f: any) => f.action),
        scope,
      ).toEqual(['deleted', 'deleted']);
    }
    expect(fs.readdirSync(path.join(project, '.claude'))).toEqual([]);
    expect(fs.existsSync(path.join(project, '.mcp.json'))).toBe(false);
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
  });

  it('a settings file that does not parse is refused with one line, and no file is touched; --dry-run changes nothing', async () => {
    const { home, setup } = place();
    const settings = path.join(home, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, '{ "hooks": { "Stop": [ }\n');
    const r = await setup('claude');
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({
      code: 'refused',
      message: expect.stringMatching(new RegExp(`^${settings.replace(/[.]/g, '\\.')} is not valid JSON \\(.*\\): fix it first; nothing was changed$`)),
    });
    expect(fs.readFileSync(settings, 'utf8')).toBe('{ "hooks": { "Stop": [ }\n');
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
    // hooks of the wrong shape are refused alike
    fs.writeFileSync(settings, '{"hooks": {"Stop": "notify-send"}}');
    expect((await setup('claude')).json.error.message).toBe(`${settings}: "hooks.Stop" is not a list of hook groups; fix it by hand, nothing was changed`);

    fs.writeFileSync(settings, '{"model": "opus"}\n');
    const dry = await setup('claude', '--dry-run');
    expect(dry.json).toMatchObject({
      ok: true,
      dry_run: true,
      files: [
        { action: 'updated', changes: expect.arrayContaining(['hooks.Stop']) },
        { action: 'created', changes: ['mcpServers.zk-memory'] },
      ],
    });
    expect(fs.readFileSync(settings, 'utf8')).toBe('{"model": "opus"}\n');
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
    const text = await zkProcess(['setup', 'claude', '--dry-run', '--root', dry.json.root], { env: { HOME: home } });
    expect(text.stdout).toContain(`${settings}: would update (+hooks.SessionStart,`);
  });

  it('a settings file that is a symlink (dotfiles in a repository) is written through to its target', async () => {
    const { home, setup } = place();
    const dotfiles = tempDir('zk-dotfiles-');
    const target = path.join(dotfiles, 'claude-settings.json');
    writeJson(target, { model: 'opus' });
    fs.mkdirSync(path.join(home, '.claude'));
    fs.symlinkSync(target, path.join(home, '.claude', 'settings.json'));
    expect((await setup('claude')).code).toBe(0);
    expect(fs.lstatSync(path.join(home, '.claude', 'settings.json')).isSymbolicLink()).toBe(true);
    expect(readJson(target)).toMatchObject({ model: 'opus', hooks: { Stop: expect.any(Array) } });
  });
});

describe('setup gemini', () => {
  it('hooks and the MCP server in ~/.gemini/settings.json, timeouts in ms; no local scope; --remove restores the file', async () => {
    const { home, root, setup } = place();
    const settings = path.join(home, '.gemini', 'settings.json');
    const before = {
      theme: 'GitHub',
      hooks: { BeforeTool: [{ matcher: 'write_file', hooks: [{ name: 'scan', type: 'command', command: 'scan.sh' }] }] },
      mcpServers: { gh: { command: 'gh-mcp' } },
    };
    writeJson(settings, before);
    const r = await setup('gemini');
    expect(r.json.files).toEqual([
      { file: settings, action: 'updated', changes: ['hooks.SessionStart', 'hooks.BeforeAgent', 'hooks.AfterAgent', 'mcpServers.zk-memory'] },
    ]);
    const s = readJson(settings);
    expect(s.hooks.BeforeAgent).toEqual([
      { hooks: [{ name: 'zk-memory', type: 'command', command: `${process.execPath} ${fs.realpathSync(BIN)} hook gemini --root ${root}`, timeout: 5000 }] },
    ]);
    expect(s.hooks.BeforeTool).toEqual(before.hooks.BeforeTool);
    expect(s.mcpServers.gh).toEqual(before.mcpServers.gh);
    expect((await setup('gemini')).json.files[0].action).toBe('unchanged');
    const local = await setup('gemini', '--scope', 'local');
    expect([local.code, local.json.error.message]).toEqual([2, 'Gemini CLI has no local scope: use --scope user or --scope project']);
    await setup('gemini', '--remove');
    expect(readJson(settings)).toEqual(before);
  });

  it('an unknown host or scope is a usage error', async () => {
    const { setup } = place();
    expect((await setup('vim')).json.error).toMatchObject({ code: 'usage', message: expect.stringContaining('unknown host: "vim"') });
    expect((await setup('claude', '--scope', 'galaxy')).json.error).toMatchObject({
      code: 'usage',
      message: 'unknown scope: "galaxy" (user, project or local)',
    });
  });
});
