import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';

// The one JSON-schema validator of the process: the judge checks a model's answers with it, and
// both surfaces the arguments of an operation (MCP a tool's, the command line a command's). Each caller words the problems for its own reader.

type AjvClass = typeof import('ajv').default;

export type SchemaProblem = ErrorObject;

let ajv: InstanceType<AjvClass> | undefined;
const compiled = new Map<string, ValidateFunction>();

/** ajv is loaded on the first validation, so commands that never validate never pay for it. */
function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (!ajv) {
      const Ajv = (createRequire(import.meta.url)('ajv') as { default: AjvClass }).default;
      // The schemas are the product's own, written once and tested: checking each against JSON
      // Schema's meta-schema on every start cost three times the compile (25 ms of a command line's start).
      ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, meta: false });
    }
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** What is wrong with `data` against `schema`, every problem; empty when it matches. */
export function schemaProblems(schema: object, data: unknown): SchemaProblem[] {
  const validate = validatorFor(schema);
  return validate(data) ? [] : [...(validate.errors ?? [])];
}
