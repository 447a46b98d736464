/**
 * Post-processing of the generated OpenAPI document: every schema with a `title` becomes a named
 * component (`#/components/schemas/<title>`) referenced by `$ref` wherever it appears, so that
 * generated clients get one named type per resource instead of the same shape inlined at every
 * operation. Two different schemas may not share a title: that would make one name mean two
 * shapes, and the document fails to build instead.
 */

type Json = Record<string, unknown>;
type Schema = unknown;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** HTTP methods that hold an operation in a path item. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Keywords whose value is a map of subschemas, a list of them, or one. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];

/** A JSON text of `value` with object keys sorted, so that equal schemas give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Applies `fn` to each direct subschema of `schema`, in a copy. */
function mapSubschemas(schema: Json, fn: (s: Schema) => Schema): Json {
  const out: Json = { ...schema };
  for (const key of SCHEMA_MAPS) {
    const value = out[key];
    if (isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, fn(s)]));
  }
  for (const key of SCHEMA_LISTS) {
    const value = out[key];
    if (Array.isArray(value)) out[key] = value.map(fn);
  }
  for (const key of SCHEMA_ONE) {
    const value = out[key];
    if (Array.isArray(value)) out[key] = value.map(fn);
    else if (isObject(value)) out[key] = fn(value);
  }
  return out;
}

/** Calls `fn` on every schema position of an operation (or webhook) and stores what it returns. */
function eachOperationSchema(op: Json, fn: (s: Schema) => Schema): void {
  for (const p of (op.parameters as Json[] | undefined) ?? []) if ('schema' in p) p.schema = fn(p.schema);
  const body = op.requestBody as Json | undefined;
  if (body) eachContentSchema(body, fn);
  for (const r of Object.values((op.responses as Json | undefined) ?? {})) eachResponseSchema(r as Json, fn);
  const messages = op['x-messages'] as Json | undefined;
  if (messages) for (const name of Object.keys(messages)) messages[name] = fn(messages[name]);
}

function eachContentSchema(holder: Json, fn: (s: Schema) => Schema): void {
  for (const media of Object.values((holder.content as Json | undefined) ?? {}))
    if (isObject(media) && 'schema' in media) media.schema = fn(media.schema);
}

function eachResponseSchema(response: Json, fn: (s: Schema) => Schema): void {
  if ('$ref' in response) return;
  eachContentSchema(response, fn);
  for (const h of Object.values((response.headers as Json | undefined) ?? {}))
    if (isObject(h) && 'schema' in h) h.schema = fn(h.schema);
}

/** Every operation of the document, in `paths` and in `webhooks`, with where it is. */
export function operations(doc: Json): { where: string; op: Json }[] {
  const out: { where: string; op: Json }[] = [];
  for (const [section, prefix] of [
    ['paths', ''],
    ['webhooks', 'webhook '],
  ] as const) {
    for (const [path, item] of Object.entries((doc[section] as Json | undefined) ?? {}))
      for (const method of METHODS) {
        const op = (item as Json)[method];
        if (isObject(op)) out.push({ where: `${prefix}${method.toUpperCase()} ${path}`, op });
      }
  }
  return out;
}

/**
 * Moves every titled schema of the document into `components.schemas` under its title and puts a
 * `$ref` in its place. Also writes `const` as a one-value `enum` everywhere, as the generator does
 * for the schemas it converts, so that a shape is spelt the same wherever it came from. Throws when
 * two different schemas carry one title.
 */
export function hoistNamedSchemas(doc: Json): void {
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  const texts = new Map<string, string>();

  const register = (name: string, schema: Json): void => {
    const text = canonical(schema);
    const known = texts.get(name);
    if (known !== undefined && known !== text)
      throw new Error(
        `OpenAPI: two different schemas are titled "${name}": give one of them another title\n  ${known}\n  ${text}`,
      );
    texts.set(name, text);
    schemas[name] = schema;
  };

  const inner = (schema: Json): Json => {
    const out = mapSubschemas(schema, named);
    if ('const' in out && !('enum' in out)) {
      out.enum = [out.const];
      delete out.const;
    }
    return out;
  };
  function named(schema: Schema): Schema {
    if (!isObject(schema) || '$ref' in schema) return schema;
    const out = inner(schema);
    if (typeof out.title !== 'string') return out;
    register(out.title, out);
    return { $ref: `#/components/schemas/${encodeURIComponent(out.title)}` };
  }

  for (const name of Object.keys(schemas)) {
    const schema = schemas[name];
    if (isObject(schema)) register(name, inner(schema));
  }
  for (const { op } of operations(doc)) eachOperationSchema(op, named);
  for (const r of Object.values((components.responses as Json | undefined) ?? {}))
    eachResponseSchema(r as Json, named);
}

/** Every `$ref` of the document that names nothing in it. */
export function unresolvedRefs(doc: Json): string[] {
  const missing = new Set<string>();
  const resolve = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (isObject(node) ? node[part] : undefined), doc);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      const ref = node.$ref;
      if (typeof ref === 'string' && (!ref.startsWith('#/') || resolve(ref) === undefined)) missing.add(ref);
      Object.values(node).forEach(visit);
    }
  };
  visit(doc);
  return [...missing];
}

/**
 * Moves each named schema that only ever is a request body into `components.requestBodies`, and
 * points the operations there. A body field with a default (a webhook's `is_active`) may be left
 * out; generators such as openapi-typescript make a field with a default required in a schema
 * component (right for answers, which always carry it) but not under a request body, so a named
 * request shape belongs there for a typed call to be able to omit it.
 */
export function requestBodiesAsComponents(doc: Json): void {
  const components = doc.components as Json;
  const schemas = components.schemas as Json;
  const prefix = '#/components/schemas/';
  const bodyRef = (op: Json): string | undefined => {
    const media = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.[
      'application/json'
    ];
    const ref = (media?.schema as Json | undefined)?.$ref;
    return typeof ref === 'string' && ref.startsWith(prefix) ? ref : undefined;
  };
  const asBody = new Map<string, number>();
  // Operations only: a webhook's payload is what a receiver gets, always whole, so it stays a schema.
  const ops = operations(doc).filter(({ where }) => !where.startsWith('webhook '));
  for (const { op } of ops) {
    const ref = bodyRef(op);
    if (ref) asBody.set(ref, (asBody.get(ref) ?? 0) + 1);
  }
  const all = new Map<string, number>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      if (typeof node.$ref === 'string') all.set(node.$ref, (all.get(node.$ref) ?? 0) + 1);
      Object.values(node).forEach(visit);
    }
  };
  visit(doc);
  const bodies = (components.requestBodies ??= {}) as Json;
  for (const { op } of ops) {
    const ref = bodyRef(op);
    if (!ref || all.get(ref) !== asBody.get(ref)) continue;
    const name = decodeURIComponent(ref.slice(prefix.length));
    const body = op.requestBody as Json;
    if (!bodies[name]) {
      bodies[name] = { ...body, content: { 'application/json': { schema: schemas[name] } } };
    }
    op.requestBody = { $ref: `#/components/requestBodies/${encodeURIComponent(name)}` };
  }
  for (const name of Object.keys(bodies)) delete schemas[name];
}
