import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';

/** The corpora a token command acts on: each `--corpus NAME` given, else the one corpus of the command (--root, ZK_MEMORY_ROOT, the working folder). */
async function tokenCorpora(cli: Invocation): Promise<string[]> {
  const names = cli.globals.corpora ?? [];
  if (!names.length) return [cli.root()];
  const { corpusRoot } = await import('../api/corpora.js');
  return names.map(corpusRoot);
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('token <action> [name]')
    .description(
      'bearer tokens for MCP over HTTP (serve --http): create NAME [--corpus A --corpus B …] (printed once) | list [--all] | revoke NAME | approve (a one-time code for the OAuth consent page)',
    )
    .option('--read-only', 'with create: the token may call only the tools that read')
    .option('--all', 'with list: every token, of every corpus')
    .action(
      cli.action(async (action: string, name: string | undefined, flags: { readOnly?: boolean; all?: boolean }) => {
        const api = await import('../api/tokens.js');
        const view = await import('../text/tokens.js');
        if (action === 'list') {
          const roots = flags.all && !cli.globals.corpora && !cli.globals.root ? [] : await tokenCorpora(cli);
          const tokens = await api.listTokens(roots, { all: flags.all });
          return { json: { tokens }, text: view.tokensText(tokens) };
        }
        if (action === 'approve') {
          const { approvalCode } = await import('../api/oauth-store.js');
          const made = await approvalCode();
          return { json: { ...made }, text: `${made.code}\n(enter it on the consent page of serve --http --oauth before ${made.expires}; it works once)` };
        }
        if (action !== 'create' && action !== 'revoke')
          throw new ZkError(
            'usage',
            `unknown token action: ${JSON.stringify(action)} (use "token create NAME", "token list", "token revoke NAME" or "token approve")`,
          );
        if (!name) throw new ZkError('usage', `token ${action} needs the token's NAME`);
        const roots = await tokenCorpora(cli);
        if (action === 'create') {
          const made = await api.createToken(roots, name, { readOnly: flags.readOnly });
          return { json: { ...made }, text: view.createdText(made) };
        }
        const gone = await api.revokeToken(roots, name);
        return {
          json: { revoked: gone.name, corpora: gone.corpora },
          text: `revoked the token ${gone.name}: a running server refuses it from its next request on`,
        };
      }),
    );
}
