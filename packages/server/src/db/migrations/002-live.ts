import { sql, type Kysely, type Migration } from 'kysely';
import type { Engine } from '../types.js';

/**
 * Live presence (`session_members`, one row per connection) and, on PostgreSQL, the recorded
 * streams. (On SQLite the streams live in their own file: streams/sqlite.ts.)
 */
export function liveMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('session_members')
        .addColumn('conn_id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('joined_at', 'bigint', (c) => c.notNull())
        .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
        .addColumn('left_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('session_members_session')
        .on('session_members')
        .columns(['session_id', 'left_at'])
        .execute();
      if (engine === 'postgres') {
        await sql`
          create table stream_events (
            session_id text not null,
            seq bigint not null,
            stream_id text not null,
            ts bigint not null,
            body bytea not null,
            primary key (session_id, seq)
          )`.execute(db);
        await sql`create index stream_events_ts on stream_events (session_id, ts)`.execute(db);
      }
    },
  };
}
