import { sql } from 'kysely';
import type { Trx } from './types.js';

/**
 * Serialises changes to one organisation's membership for the rest of the transaction. Checks
 * such as "another owner remains" read other rows than they change, so on PostgreSQL two
 * concurrent changes would both pass them; the row lock makes the second wait and re-check.
 * SQLite runs one write transaction at a time, so there is nothing to lock.
 */
export async function lockOrg(trx: Trx, engine: 'sqlite' | 'postgres', orgId: string): Promise<void> {
  if (engine === 'postgres') await sql`select id from orgs where id = ${orgId} for update`.execute(trx);
}
