// Compiles the schema of every operation and MCP tool into one module, dist/src/schema-validators.cjs,
// with ajv's standalone code: the validator src/validate.ts uses takes them from there. Loading ajv
// and compiling a schema at run time cost a command line about 50 ms of its start; the compiled
// code loads in about one.
import fs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => pathToFileURL(join(root, 'dist', 'src', p)).href;
const { AJV_OPTIONS, validatorName } = await import(dist('validate.js'));
// Every operation of the table is the MCP tool of its name (test/operations.test.ts), so the tools' schemas are all of them.
const { TOOLS } = await import(dist('mcp/tools.js'));

const schemas = new Map(TOOLS.map((tool) => [validatorName(tool.inputSchema), tool.inputSchema]));

const ajv = new Ajv.default({ ...AJV_OPTIONS, code: { source: true } });
for (const [name, schema] of schemas) ajv.addSchema(schema, name);
const code = standaloneCode.default(ajv, Object.fromEntries([...schemas.keys()].map((name) => [name, name])));
fs.writeFileSync(join(root, 'dist', 'src', 'schema-validators.cjs'), code);
