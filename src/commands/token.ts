import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('token <action> [name]')
    .description('bearer tokens for MCP over HTTP (serve --http): create NAME (printed once) | list | revoke NAME')
    .option('--read-only', 'with create: the token may call only the tools that read')
    .action(cli.action(async (action: string, name: string | undefined, flags: { readOnly?: boolean }) => {
      const api = await import('../api/tokens.js');
      const view = await import('../views/tokens.js');
      const root = cli.root();
      if (action === 'list') {
        const tokens = await api.listTokens(root);
        return { json: { tokens }, text: view.tokensText(tokens) };
      }
      if (action !== 'create' && action !== 'revoke') throw new ZkError('usage', `unknown token action: ${JSON.stringify(action)} (use "token create NAME", "token list" or "token revoke NAME")`);
      if (!name) throw new ZkError('usage', `token ${action} needs the token's NAME`);
      if (action === 'create') {
        const made = await api.createToken(root, name, { readOnly: flags.readOnly });
        return { json: { ...made }, text: view.createdText(made) };
      }
      const gone = await api.revokeToken(root, name);
      return { json: { revoked: gone.name }, text: `revoked the token ${gone.name}: a running server refuses it from its next request on` };
    }));
}
