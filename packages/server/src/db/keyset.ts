import { sql, type SelectQueryBuilder } from 'kysely';
import type { Tables } from './types.js';

/** A position in a list ordered by (created_at, id). */
export interface Cursor {
  createdAt: number;
  id: string;
}

/** The opaque cursor text following `row`. */
export function encodeCursor(row: { created_at: number; id: string }): string {
  return Buffer.from(`${row.created_at}|${row.id}`, 'utf8').toString('base64url');
}

/** Reads a cursor text made by encodeCursor; undefined when it is not one. */
export function parseCursor(text: string): Cursor | undefined {
  const [t, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  const createdAt = Number(t);
  if (!Number.isSafeInteger(createdAt) || !id) return undefined;
  return { createdAt, id };
}

/**
 * One page of a list ordered by (created_at, id), after `cursor`: a row-value comparison, which
 * both engines answer from their (…, created_at, id) indexes.
 */
export function keysetPage<TB extends keyof Tables, O>(
  q: SelectQueryBuilder<Tables, TB, O>,
  after: Cursor | null,
  direction: 'asc' | 'desc',
  limit: number,
): SelectQueryBuilder<Tables, TB, O> {
  const page = after
    ? q.where(
        sql<boolean>`(created_at, id) ${sql.raw(direction === 'asc' ? '>' : '<')} (${after.createdAt}, ${after.id})`,
      )
    : q;
  return page
    .orderBy(sql`created_at`, direction)
    .orderBy(sql`id`, direction)
    .limit(limit);
}
