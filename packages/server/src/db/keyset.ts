import { sql, type SelectQueryBuilder } from 'kysely';
import type { Cursor } from '../http/pagination.js';
import type { Tables } from './types.js';

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
