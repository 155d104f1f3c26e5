import fs from 'node:fs';
import path from 'node:path';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import type { RunContext } from '../context.js';
import type { CommandLine } from '../command-line/command-line.js';
import { canonicalRoot } from './socket-path.js';
import { serve, type RunningServer } from './serve.js';
import type { CorpusRoute } from './http.js';

// Every registered corpus (src/corpus/registry.ts) served beside the one `serve --http` was
// started for, each by a resident server of its own (its socket, resident state, watcher and lock, as
// if served alone), its MCP sessions reached over the one HTTP port at /mcp/NAME.

export interface RegisteredServers {
  /** Name → corpus, as requests find them; a corpus whose server ended leaves it. */
  routes: Map<string, CorpusRoute>;
  /** Stop every server started here, and wait for each. */
  close(reason: string): Promise<void>;
}

/**
 * Start a resident server for each registered corpus other than `primary` (whose server the
 * caller starts, with HTTP), making way for one a command started in the background. A corpus
 * already served in the foreground is `busy`: it cannot be served twice.
 */
export async function serveRegistered(
  primary: string,
  o: { run: CommandLine; makeWay(root: string): Promise<void>; sessionContext(resident: RunningServer['resident']): RunContext },
): Promise<RegisteredServers> {
  const [{ listCorpora }, { listTokens }] = await Promise.all([import('../api/corpora.js'), import('../api/tokens.js')]);
  const { io } = current();
  const own = canonicalRoot(primary);
  const routes = new Map<string, CorpusRoute>();
  const started: RunningServer[] = [];
  let closing = false;
  const close = async (reason: string) => {
    closing = true;
    for (const s of started) s.close(reason);
    await Promise.all(started.map((s) => s.done));
  };
  try {
    for (const { name, root } of listCorpora()) {
      if (!fs.statSync(path.join(root, '.zk'), { throwIfNoEntry: false })?.isDirectory()) {
        io.stderr(`warning: corpus ${name} is not served: ${root} is no corpus now (zk-memory corpus remove ${name} forgets it)\n`);
        continue;
      }
      if (canonicalRoot(root) === own) {
        routes.set(name, { root: primary });
        continue;
      }
      await o.makeWay(root);
      // Tokens an older version kept in the corpus move to the store (when made on this host) before a client needs them.
      await listTokens(root);
      const running = await serve(root, { run: o.run }).catch((err: unknown) => {
        throw err instanceof ZkError ? new ZkError(err.code, `corpus ${name}: ${err.message}`) : err;
      });
      started.push(running);
      routes.set(name, { root, ctx: o.sessionContext(running.resident) });
      void running.done.then((reason) => {
        routes.delete(name);
        if (!closing) io.stderr(`corpus ${name} (${root}) is no longer served: ${reason}\n`);
      });
    }
  } catch (err) {
    await close('the server could not start');
    throw err;
  }
  return { routes, close };
}
