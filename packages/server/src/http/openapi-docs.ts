import { Type, type TObject, type TSchema } from '@sinclair/typebox';

/**
 * What a route's schema tells the OpenAPI document beyond what Fastify validates and serialises.
 * Fastify never reads `schema.docs`: it only feeds the document (openapi.ts), so nothing here can
 * change what a route accepts or answers.
 */

/** One documented answer, in the shape @fastify/swagger reads from a route's `response`. */
export interface DocResponse {
  description: string;
  /** the body by media type; absent with `type: 'null'` (no body) */
  content?: Record<string, { schema: unknown }>;
  /** response headers: name → schema, with its `description` */
  headers?: Record<string, Record<string, unknown>>;
  /** `'null'`: the answer has no body */
  type?: 'null';
}

/** One event the service POSTs to subscribed receivers: an entry of the document's `webhooks`. */
export interface WebhookDoc {
  operationId: string;
  summary: string;
  description: string;
  /** the JSON body of the POST */
  body: TSchema;
  /** the request headers of every delivery, as the properties of an object (all of them sent) */
  headers: TObject;
  /** what the receiver answers, and what the service makes of it */
  responses: Record<string, DocResponse>;
}

export interface RouteDocs {
  /**
   * Answers no response schema serialises (HTML, plain text, a redirect, another protocol's body),
   * or a second media type of one that is: merged over the route's `response` in the document only.
   */
  responses?: Record<string, DocResponse>;
  /**
   * The ranges whose answers are the error envelope unless `responses` says otherwise: by default
   * both; fewer where the route's own failures take another form.
   */
  envelopeErrors?: ('4xx' | '5xx')[];
  /** the query of a route that reads it itself, without a `querystring` schema */
  querystring?: TObject;
  /** the body of a route that parses it itself, without a `body` schema */
  body?: TSchema;
  /** the media types that body may come in (default JSON) */
  consumes?: string[];
  /** event type → the delivery the service POSTs for it (the document's `webhooks`) */
  webhooks?: Record<string, WebhookDoc>;
  /**
   * Named schemas of messages that travel outside HTTP bodies (the WebSocket's), listed on the
   * operation as `x-messages` so that the document names and links them.
   */
  messages?: Record<string, TSchema>;
}

declare module 'fastify' {
  interface FastifySchema {
    docs?: RouteDocs;
  }
}

/** `{ data, error: null }` around a success schema, with what the answer means (for the document). */
export function okResponse<T extends TSchema>(description: string, data: T) {
  return Type.Object({ data, error: Type.Null() }, { description });
}

/** A documented answer with a JSON body that is not the envelope (another protocol's own shape). */
export function jsonDoc(description: string, schema: unknown, headers?: DocResponse['headers']): DocResponse {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}

/** A documented HTML page. */
export function htmlDoc(description: string): DocResponse {
  return { description, content: { 'text/html': { schema: { type: 'string' } } } };
}

/** A documented plain-text answer. */
export function textDoc(description: string, schema: unknown = { type: 'string' }): DocResponse {
  return { description, content: { 'text/plain': { schema } } };
}

/** A documented answer without a body. */
export function emptyDoc(description: string, headers?: DocResponse['headers']): DocResponse {
  return { description, type: 'null', ...(headers ? { headers } : {}) };
}
