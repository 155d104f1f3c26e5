import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';

interface SetupFlags {
  scope: string;
  remove?: boolean;
  dryRun?: boolean;
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('setup <host>')
    .description('write the MCP server entry and the hooks of an agent host (claude, gemini) for this corpus into its settings; --remove takes them out')
    .option('--scope <scope>', "user (every project), project (shared in the project's files) or local (this project, for you)", 'user')
    .option('--remove', 'take out what setup added, and nothing else')
    .option('--dry-run', 'say what would change, and change nothing')
    .action(
      cli.action(async (host: string, flags: SetupFlags) => {
        const { setup } = await import('../api/setup.js');
        const { setupText } = await import('../text/setup.js');
        const { binPath } = await import('../version.js');
        const { io, settings } = current();
        const root = fs.realpathSync(cli.root());
        if (!fs.existsSync(path.join(root, '.zk'))) throw new ZkError('no_root', `not a corpus: ${root} (create it first with: zk-memory init ${root})`);
        const home = settings.environment().HOME?.trim() || os.homedir();
        const r = setup({
          host,
          scope: flags.scope as 'user',
          root,
          home: path.resolve(home),
          project: path.resolve(io.cwd()),
          node: process.execPath,
          bin: fs.realpathSync(binPath()),
          remove: flags.remove,
          dryRun: flags.dryRun,
        });
        return { json: { ...r }, text: setupText(r) };
      }),
    );
}
