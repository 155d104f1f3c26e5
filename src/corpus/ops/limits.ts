import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';

/** The largest body or fragment accepted (ZK_MEMORY_MAX_BODY bytes; default 5 MiB). */
export function maxBodyBytes(): number {
  return settings().maxBodyBytes();
}

export function checkSize(what: string, text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBodyBytes()) {
    throw new ZkError('usage', `${what} too large: ${bytes} bytes (limit ${maxBodyBytes()}; set ZK_MEMORY_MAX_BODY to change it)`);
  }
  if (text.includes('\0')) throw new ZkError('usage', `${what} contains a NUL byte: binary input is not a note`);
}
