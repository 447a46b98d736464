import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeCursor, parseCursor, type Cursor } from '../db/keyset.js';
import { BadRequest } from './errors.js';

/** `limit` (1 to 200, default 50) and `cursor` of every list. */
export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, 1 to 200' }),
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'opaque; copy it from the `Link: rel="next"` header of the previous page',
    }),
  ),
});
export type PageQuery = Static<typeof PageQuery>;

/** Reads the opaque cursor of a page query; 400 when it was not made by us. */
export function decodeCursor(cursor: string | undefined): Cursor | null {
  if (cursor === undefined) return null;
  const parsed = parseCursor(cursor);
  if (!parsed) throw new BadRequest('query.cursor is not a cursor this API issued');
  return parsed;
}

/**
 * Trims a page fetched with limit + 1 rows to `limit`, and announces the next one with a
 * `Link: <…>; rel="next"` header carrying the same query with the new cursor.
 */
export function paginate<T extends { created_at: number; id: string }>(
  rows: T[],
  limit: number,
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
): T[] {
  if (rows.length <= limit) return rows;
  const page = rows.slice(0, limit);
  const url = new URL(baseUrl + request.url);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('cursor', encodeCursor(page[page.length - 1]!));
  reply.header('link', `<${url.toString()}>; rel="next"`);
  return page;
}
