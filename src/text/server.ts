import type { ServerStatus } from '../api/results.js';

/** `serve --status`, and the line `status` gives the server. */
export function serverText(s: ServerStatus): string {
  if (!s.running) return `no server runs${s.socket ? ` (socket ${s.socket})` : ''}${'reason' in s && s.reason ? `: ${s.reason}` : ''}`;
  return `server: pid ${s.pid}, since ${s.since}, ${s.rss} MB, socket ${s.socket}${s.http ? `, MCP over HTTP at ${s.http}` : ''}${s.viewer ? `, viewer at ${s.viewer} (zk-memory view for a link)` : ''}`;
}
