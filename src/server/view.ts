import { ZkError } from '../errors.js';
import { startDetached } from '../adapters/processes.js';
import type { Settings } from '../settings.js';
import { ask } from './client.js';
import { buildId } from './protocol.js';
import { ensureSocketFolder, socketFolder, socketPath } from './socket-path.js';
import { askStarting } from './start.js';

// `zk-memory view`: a launch link of the viewer of the corpus's resident server, starting the
// server in the background when none runs (docs/viewer.md).

/** A one-time launch link of the corpus's viewer. */
export async function viewerLaunch(root: string, settings: Settings): Promise<string> {
  const folder = socketFolder(settings);
  ensureSocketFolder(folder);
  const sock = socketPath(folder, root);
  const build = buildId();
  const out = await askStarting(sock, root, settings.environment(), build, () => ask(sock, { kind: 'view', build }), { patient: true });
  if ('accepted' in out && out.launch) return out.launch;
  throw new ZkError('no_server', `no viewer for ${root}: ${'reason' in out ? out.reason : 'the server gave no link'}`);
}

/** Open `url` in the desktop's browser when there is one; answers whether it tried. */
export function openInBrowser(url: string, env: Record<string, string | undefined>): boolean {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? undefined : env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : undefined;
  if (!command) return false;
  try {
    startDetached(command, [url], env as NodeJS.ProcessEnv);
    return true;
  } catch {
    return false;
  }
}
