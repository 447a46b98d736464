import { sql, type Migration } from 'kysely';
import type { Engine } from '../types.js';

/**
 * Recorded bodies out of the rows (PostgreSQL): a row keeps its body while its session's recording
 * is open, and once sealed into a segment object it keeps only where the body is (segment, offset,
 * length, CRC-32). Rows written before this migration keep their bodies and are read as before
 * until sealed. (The embedded store keeps its index in streams.sqlite and moves its rows itself.)
 */
export function segmentsMigration(engine: Engine): Migration {
  return {
    async up(db) {
      if (engine !== 'postgres') return;
      await sql`
        alter table stream_events
          alter column body drop not null,
          add column segment integer,
          add column off bigint,
          add column len integer,
          add column crc bigint`.execute(db);
    },
  };
}
