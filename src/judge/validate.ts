import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

type AjvClass = typeof import('ajv').default;

let ajv: InstanceType<AjvClass> | undefined;
const compiled = new Map<string, ValidateFunction>();

/** ajv is loaded on the first validation, so commands that never judge never pay for it. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (!ajv) {
      const Ajv = (createRequire(import.meta.url)('ajv') as { default: AjvClass }).default;
      ajv = new Ajv({ allErrors: true, strict: false });
    }
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why `data` does not match `schema`, one line per problem; empty when it matches. */
export function schemaErrors(schema: Record<string, unknown>, data: unknown): string[] {
  const validate = validatorFor(schema);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => {
    const where = e.instancePath ? e.instancePath.slice(1) : 'answer';
    const allowed = e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
    return `${where} ${e.message}${allowed}`;
  });
}
