import type { Command } from 'commander';
import { current } from '../context.js';
import { addEmbedOptions, addLlmOptions, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  const cmd = program.command('mcp').description('serve the memory to agents as MCP tools on stdio (search, read, write, merge, integrate, retain, …)');
  addEmbedOptions(addLlmOptions(cmd)).action(
    cli.action(async () => {
      const root = cli.root(); // fail now, with the usual message, rather than on every tool call
      const [{ serveMcp }, { serverStatus }] = await Promise.all([import('../mcp/server.js'), import('../server/status.js')]);
      // The flags given here are part of the settings every tool call runs with.
      await serveMcp(root, current(), serverStatus, cli.surface.streams);
      return { json: {}, text: '' };
    }),
  );
}
