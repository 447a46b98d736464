import { Ajv, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are checked strictly (a number is not a string, unknown fields are refused where the
 * schema says so); path and query values arrive as text and are coerced to their declared types.
 */
export function validatorCompiler() {
  const strictAjv = makeAjv(false);
  const coercingAjv = makeAjv(true);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

const PART: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** One sentence naming the field of the first validation error, e.g. "body.name must be a string". */
export function describeValidation(errors: FastifySchemaValidationError[], context: string): string {
  // Inside an anyOf, the first branch's complaint misleads ("must be null"); the anyOf itself does not.
  const e = (errors.find((x) => x.keyword === 'anyOf' || x.keyword === 'oneOf') ?? errors[0]) as
    ErrorObject | undefined;
  const part = PART[context] ?? context;
  if (!e) return `${part} is invalid`;
  const path = (e.instancePath || '')
    .split('/')
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
    .join('');
  const at = `${part}${path}`;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at}.${String(p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${at}.${String(p.additionalProperty)} is not a known field`;
    case 'type':
      return `${at} must be ${article(String(p.type))}`;
    case 'minLength':
      return Number(p.limit) === 1
        ? `${at} must not be empty`
        : `${at} must be at least ${p.limit} characters`;
    case 'maxLength':
      return `${at} must be at most ${p.limit} characters`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at} ${e.message}`;
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${at} must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `${at} must be a valid ${String(p.format)}`;
    case 'pattern':
      return `${at} has an invalid format`;
    case 'anyOf':
    case 'oneOf':
      return `${at} is not any of the allowed shapes`;
    default:
      return `${at} ${e.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  const t = type.replace(/,/g, ' or ');
  if (t === 'integer') return 'an integer';
  if (t === 'object') return 'an object';
  if (t === 'array') return 'an array';
  if (t === 'null') return 'null';
  return `a ${t}`;
}
