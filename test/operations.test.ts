import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS, validatorName } from '../src/validate.js';
import * as notes from '../src/operations/notes.js';
import * as recall from '../src/operations/recall.js';
import type { Operation } from '../src/operations/operation.js';
import { TOOLS } from '../src/mcp/tools.js';
import { REPO, snapshot, tempCorpus, zk } from './helpers/corpus.js';

// The operations both surfaces render (src/operations/): what MCP offers and what the command line
// takes come from one entry each.

const isOperation = (v: unknown): v is Operation => typeof v === 'object' && v !== null && 'run' in v && 'args' in v;
const OPERATIONS = [...Object.values(recall), ...Object.values(notes)].filter(isOperation);
const flagOf = (key: string) => `--${key.replace(/_/g, '-')}`;

describe('the table of operations', () => {
  it('holds the operations both surfaces offer', () => {
    expect(OPERATIONS.map((op) => op.name).sort()).toEqual(['archive', 'context', 'integrate', 'list', 'log', 'merge', 'read', 'search', 'supersede', 'write']);
  });

  it.each(OPERATIONS.map((op) => [op.name, op] as const))('%s is the MCP tool of its name, with its description, schema and flags', (name, op) => {
    const tool = TOOLS.find((t) => t.name === name);
    expect(tool).toBeDefined();
    expect(tool!.description).toBe(op.description);
    expect(tool!.inputSchema).toBe(op.args);
    expect([tool!.readOnly, tool!.needsLlm, tool!.redacts, tool!.needsGit]).toEqual([op.readOnly, op.needsLlm, op.redacts, op.needsGit]);
  });

  it.each(OPERATIONS.map((op) => [op.name, op] as const))(
    '%s takes every argument of its schema on the command line, and its help names each option',
    async (name, op) => {
      const positional = (op.cli!.positionals ?? []).map((p) => p.replace(/[<>[\].]/g, ''));
      const options = Object.entries(op.cli!.options).filter(([, o]) => !o.flag);
      expect([...positional, ...options.map(([key]) => key)].sort()).toEqual(Object.keys(op.args.properties).sort());
      const help = await zk([name, '--help']);
      expect(help.code).toBe(0);
      for (const [key, o] of options) expect(help.stdout).toContain(o.value ? `${flagOf(key)} ${o.value}` : flagOf(key));
    },
  );

  it.each([
    ['left out', []],
    ['given empty', ['--by', '']],
    ['given empty with =', ['--by=']],
  ])("a required argument given as an option and %s is refused in the command's words, nothing changed", async (_name, by) => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'old', 'Old', 'body']);
    const before = snapshot(root);
    const r = await zk(['--root', root, 'supersede', 'old', ...by]);
    expect([r.code, r.stderr]).toEqual([2, 'error: supersede needs --by NEW: the note that replaces OLD']);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('the validators the build compiled', () => {
  // The built tool checks arguments with code compiled by `npm run build` (scripts/build-validators.mjs):
  // one for every schema a surface checks, answering as ajv compiling the schema at run time does.
  const built = createRequire(import.meta.url)(path.join(REPO, 'dist', 'src', 'schema-validators.cjs')) as Record<string, (data: unknown) => boolean>;
  const ajv = new Ajv(AJV_OPTIONS);
  const probes = [{}, { query: 7, ref: 'x', slug: 'a', title: 'T', body: 'b' }, { limit: 0, budget: -1, kind: 'idea', hops: 5 }, { nonsense: true }];

  it('are what the built tool checks with: a schema of the table is checked without loading ajv, another one loads it', async () => {
    const { execa } = await import('execa');
    const dist = (p: string) => JSON.stringify(pathToFileURL(path.join(REPO, 'dist', 'src', p)).href);
    const check = async (schema: string) => {
      const script = [
        `import { schemaProblems } from ${dist('validate.js')};`,
        `import { search } from ${dist('operations/recall.js')};`,
        "import { createRequire } from 'node:module';",
        `const problems = schemaProblems(${schema}, {}).map((p) => p.keyword);`,
        "const ajv = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/ajv/'));",
        'console.log(JSON.stringify({ problems, ajv }));',
      ].join('\n');
      return JSON.parse((await execa('node', ['--input-type=module', '-e', script], { cwd: REPO })).stdout);
    };
    expect(await check('search.args')).toEqual({ problems: ['required'], ajv: false });
    expect(await check("{ type: 'object', required: ['x'] }")).toEqual({ problems: ['required'], ajv: true });
  });

  it.each(TOOLS.map((t) => [t.name, t.inputSchema] as const))('%s has one, and it finds what ajv finds', (_name, schema) => {
    const validate = built[validatorName(schema)] as ((data: unknown) => boolean) & { errors?: unknown };
    expect(validate).toBeTypeOf('function');
    const fresh = ajv.compile(schema);
    for (const data of probes) {
      expect(validate(data), JSON.stringify(data)).toBe(fresh(data));
      expect(validate.errors ?? null).toEqual(fresh.errors ?? null);
    }
  });
});
