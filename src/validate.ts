import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';

// The one JSON-schema validator of the process: the judge checks a model's answers with it, and
// both surfaces the arguments of an operation (MCP a tool's, the command line a command's). Each caller words the problems for its own reader.

type AjvClass = typeof import('ajv').default;

export type SchemaProblem = ErrorObject;

let ajv: InstanceType<AjvClass> | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * How ajv compiles: every problem, not the first. The schemas are the product's own, written once
 * and tested: checking each against JSON Schema's meta-schema on every start cost three times the
 * compile. The build compiles the same way (scripts/build-validators.mjs).
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, validateSchema: false, meta: false } as const;

/** The name a schema's validator has among those compiled by the build: its JSON's digest. */
export function validatorName(schema: object): string {
  return `v${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 24)}`;
}

const requireHere = createRequire(import.meta.url);

/**
 * The validator the build compiled for the schema named so (the operations' and MCP tools'); none
 * for another schema (a judge's), or where there is no build (the sources run as they are).
 */
function built(name: string): ValidateFunction | undefined {
  try {
    return (requireHere('./schema-validators.cjs') as Record<string, ValidateFunction | undefined>)[name];
  } catch {
    return undefined;
  }
}

/** The build's validator of a schema, else one compiled on first use: ajv is loaded only then. */
function validatorFor(schema: object): ValidateFunction {
  const name = validatorName(schema);
  let validate = compiled.get(name) ?? built(name);
  if (!validate) {
    if (!ajv) {
      const Ajv = (requireHere('ajv') as { default: AjvClass }).default;
      ajv = new Ajv(AJV_OPTIONS);
    }
    validate = ajv.compile(schema);
  }
  compiled.set(name, validate);
  return validate;
}

/** What is wrong with `data` against `schema`, every problem; empty when it matches. */
export function schemaProblems(schema: object, data: unknown): SchemaProblem[] {
  const validate = validatorFor(schema);
  return validate(data) ? [] : [...(validate.errors ?? [])];
}
