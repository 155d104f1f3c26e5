import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lanceLogEnv, lanceRuntimeEnv, onnxTelemetryEnv } from '../src/process.js';
import { decideIndexLocation, networkFileSystem, type IndexSettings } from '../src/search/location.js';
import { tempCorpus, write, zk } from './helpers/corpus.js';

const EXT4 = 0xef53;
const NETWORK: [string, number][] = [
  ['nfs', 0x6969],
  ['smb', 0x517b],
  ['cifs', 0xff534d42],
  ['smb2', 0xfe534d42],
  ['fuse', 0x65735546],
];

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function corpus(): string {
  const root = tempCorpus();
  made.push(root);
  write(root, '20261101-lake.md', '# Lake\n\nA kayak trip to the glacier lake at sunrise.\n');
  return root;
}

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-idxloc-'));
  made.push(d);
  return d;
}

const settings = (over: Partial<IndexSettings> = {}): IndexSettings => ({ cacheHome: '/home/u/.cache', host: 'host-a', ...over });

describe('where the index lives', () => {
  it('stays under .zk/index on a local disk, and when the file system cannot be asked', () => {
    const root = corpus();
    for (const type of [EXT4, 0x01021994 /* tmpfs */, undefined]) {
      const loc = decideIndexLocation(root, settings(), type);
      expect(loc).toMatchObject({ dir: path.join(root, '.zk', 'index'), placement: 'local', fileSystem: null });
      expect(loc.lock.startsWith(loc.dir + path.sep)).toBe(true);
    }
  });

  it.each(NETWORK)('on %s goes to a per-host cache folder keyed by host and the real path of the root', (name, type) => {
    const root = corpus();
    const a = decideIndexLocation(root, settings(), type);
    expect(a.placement).toBe('network');
    expect(a.fileSystem).toBe(name);
    expect(a.dir).toMatch(/^\/home\/u\/\.cache\/zk-memory\/index\/[0-9a-f]{64}$/);
    expect(a.why).toContain(name);
    // The same corpus reached through a symlink is the same index; another host gets its own.
    const link = path.join(tempDir(), 'via-link');
    fs.symlinkSync(root, link);
    expect(decideIndexLocation(link, settings(), type).dir).toBe(a.dir);
    expect(decideIndexLocation(root, settings({ host: 'host-b' }), type).dir).not.toBe(a.dir);
    expect(decideIndexLocation(corpus(), settings(), type).dir).not.toBe(a.dir);
  });

  it('ZK_MEMORY_INDEX_DIR overrides, on any file system', () => {
    const root = corpus();
    for (const [type, fileSystem] of [
      [EXT4, null],
      [0x6969, 'nfs'],
    ] as const) {
      // The corpus is still known to be on a network file system, which decides how freshness is checked.
      expect(decideIndexLocation(root, settings({ indexDir: '/srv/zk-index' }), type)).toMatchObject({
        dir: '/srv/zk-index',
        placement: 'setting',
        fileSystem,
      });
    }
  });

  it('knows the network file systems by their statfs type, and local ones as local', () => {
    for (const [name, type] of NETWORK) expect(networkFileSystem(type)).toBe(name);
    expect(networkFileSystem(-0xacb2be)).toBe('cifs'); // the same magic read as a signed 32-bit number
    expect(networkFileSystem(EXT4)).toBeUndefined();
    expect(networkFileSystem(0x58465342 /* xfs */)).toBeUndefined();
  });
});

describe('the LanceDB runtime', () => {
  it('gets a CPU pool with a thread to spare on small hosts, and keeps what the user set', () => {
    for (const cpus of [1, 2, 3, 4, 5]) expect(lanceRuntimeEnv({}, cpus)).toEqual({ LANCE_CPU_THREADS: '4' });
    expect(lanceRuntimeEnv({}, 6)).toEqual({});
    expect(lanceRuntimeEnv({}, 64)).toEqual({});
    expect(lanceRuntimeEnv({ LANCE_CPU_THREADS: '1' }, 2)).toEqual({});
  });

  it('logs errors only, unless the user set its log level', () => {
    expect(lanceLogEnv({})).toEqual({ LANCEDB_LOG: 'error' });
    expect(lanceLogEnv({ LANCEDB_LOG: 'debug' })).toEqual({});
  });

  it("turns ONNX Runtime's telemetry off, unless the user set it", () => {
    expect(onnxTelemetryEnv({})).toEqual({ ORT_DISABLE_TELEMETRY: '1' });
    expect(onnxTelemetryEnv({ ORT_DISABLE_TELEMETRY: '0' })).toEqual({});
  });
});

describe('status says where the index is and why', () => {
  it('on a local disk: under .zk/index', async () => {
    const root = corpus();
    const r = await zk(['--root', root, '--json', 'index', 'status'], { env: { ZK_MEMORY_INDEX_DIR: '' } });
    expect(r.json.index.location).toMatchObject({ dir: path.join(root, '.zk', 'index'), placement: 'local', fileSystem: null });
    const text = await zk(['--root', root, 'status'], { env: { ZK_MEMORY_INDEX_DIR: '' } });
    expect(text.stdout).toContain(`index location: ${path.join(root, '.zk', 'index')} (the corpus is on a local disk)`);
  });

  it('with ZK_MEMORY_INDEX_DIR: the index is built there and nothing of it under .zk/', async () => {
    const root = corpus();
    const dir = path.join(tempDir(), 'index');
    const env = { ZK_MEMORY_INDEX_DIR: dir };
    const search = await zk(['--root', root, '--json', 'search', 'glacier', '--backend', 'fts'], { env });
    expect(search.json.hits[0].path).toBe('20261101-lake.md');
    expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(true);
    expect(fs.existsSync(path.join(root, '.zk', 'index'))).toBe(false);
    const status = await zk(['--root', root, '--json', 'status'], { env });
    expect(status.json.index).toMatchObject({ exists: true, fresh: true, location: { dir, placement: 'setting', why: 'set by ZK_MEMORY_INDEX_DIR' } });
    expect((await zk(['--root', root, 'index', 'status'], { env })).stdout).toContain(`index location: ${dir} (set by ZK_MEMORY_INDEX_DIR)`);
  });
});
