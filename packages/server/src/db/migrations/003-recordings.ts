import { sql, type Kysely, type Migration } from 'kysely';
import type { Engine } from '../types.js';

/**
 * Replay links and redactions; on PostgreSQL also the per-stream statistics and the covering
 * (session, ts, seq) index of the stream store (the SQLite stream file creates its own).
 */
export function recordingsMigration(engine: Engine): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('replay_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('replay_links_session').on('replay_links').column('session_id').execute();
      await db.schema
        .createTable('redactions')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('redactions_pk', ['session_id', 'user_id'])
        .execute();
      if (engine === 'postgres') {
        await sql`drop index if exists stream_events_ts`.execute(db);
        await sql`create index stream_events_ts on stream_events (session_id, ts, seq)`.execute(db);
        await sql`
          create table stream_stats (
            session_id text not null,
            stream_id text not null,
            events bigint not null,
            bytes bigint not null,
            min_ts bigint not null,
            max_ts bigint not null,
            primary key (session_id, stream_id)
          )`.execute(db);
      }
    },
  };
}
