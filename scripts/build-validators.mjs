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
const operations = [...Object.values(await import(dist('operations/recall.js'))), ...Object.values(await import(dist('operations/notes.js')))];
const { TOOLS } = await import(dist('mcp/tools.js'));

const schemas = new Map();
for (const op of operations) if (op && typeof op === 'object' && op.args) schemas.set(validatorName(op.args), op.args);
for (const tool of TOOLS) schemas.set(validatorName(tool.inputSchema), tool.inputSchema);

const ajv = new Ajv.default({ ...AJV_OPTIONS, code: { source: true } });
for (const [name, schema] of schemas) ajv.addSchema(schema, name);
const code = standaloneCode.default(ajv, Object.fromEntries([...schemas.keys()].map((name) => [name, name])));
fs.writeFileSync(join(root, 'dist', 'src', 'schema-validators.cjs'), code);
