import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type DomainEvent } from '../src/bus/events.js';
import { openDatabase, type Database } from '../src/db/open.js';
import { transaction } from '../src/db/transaction.js';
// The modules declare their events beside the code that emits them; the runtime pulls them all in.
import type {} from '../src/runtime.js';

const tenant = { orgId: 'org', projectId: 'project', sessionId: 'session' };
const session = {
  id: 'session',
  project_id: 'project',
  name: 'standup',
  is_public: false,
  created_by: 'user',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  ended_at: null,
};

/**
 * Never called: the compiler checks it (`npm run check` typechecks the tests). Each
 * `@ts-expect-error` fails the check when the line below it stops being an error, so this proves
 * that a payload that does not match its event type, or an unknown type, does not compile.
 */
export function rejectedByTheCompiler(bus: EventBus, db: Database['db']): void {
  // @ts-expect-error a participant's payload is not a session's
  void bus.emit(db, 'session.created', { ...tenant, data: { user_id: 'u', display_name: 'U' } });
  // @ts-expect-error an export's payload lacks its job's fields
  void bus.emit(db, 'export.completed', { ...tenant, data: { job_id: 'j' } });
  // @ts-expect-error no such event type
  void bus.emit(db, 'session.exploded', { ...tenant, data: {} });
  // @ts-expect-error every event names its tenant
  void bus.emit(db, 'participant.left', { data: { user_id: 'u', display_name: 'U' } });
  bus.on('recording.ready', (e) => {
    // @ts-expect-error a listener sees its event's payload: recording.ready has no `user_id`
    void e.data.user_id;
  });
  // @ts-expect-error a listener's parameter must fit the payload of the type it listens to
  bus.on('participant.joined', (e: DomainEvent<'recording.ready'>) => void e);
}

describe('the domain event bus', () => {
  let dir: string;
  let database: Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-bus-'));
    database = await openDatabase({ databaseUrl: null, dataDir: dir });
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs transactional listeners with the change, and tells the others only once it commits', async () => {
    const bus = new EventBus();
    const told: string[] = [];
    bus.onTransactional('session.created', async (trx, e) => {
      expect(trx.isTransaction).toBe(true);
      told.push(`in transaction: ${e.data.id}`);
    });
    bus.onAnyTransactional(async (_trx, e) => void told.push(`any: ${e.type}`));
    bus.on('session.created', (e) => told.push(`committed: ${e.data.project_id}`));

    const emitted = await transaction(database.db, async (trx) => {
      const e = await bus.emit(trx, 'session.created', { ...tenant, at: 5, data: session });
      told.push('still inside');
      return e;
    });
    expect(told).toEqual([
      'in transaction: session',
      'any: session.created',
      'still inside',
      'committed: project',
    ]);
    expect(emitted).toMatchObject({ type: 'session.created', at: 5, orgId: 'org', data: session });
    expect(emitted.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('tells after-commit listeners nothing of a change that rolled back', async () => {
    const bus = new EventBus();
    const told: string[] = [];
    bus.onTransactional('participant.joined', async () => void told.push('in transaction'));
    bus.on('participant.joined', () => told.push('committed'));
    const data = { user_id: 'u', display_name: 'U' };
    await expect(
      transaction(database.db, async (trx) => {
        await bus.emit(trx, 'participant.joined', { ...tenant, data });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(told).toEqual(['in transaction']);
    // Other types' listeners are not called, and a removed listener is not either.
    const off = bus.on('participant.left', () => told.push('left'));
    off();
    await bus.emit(database.db, 'participant.left', { ...tenant, data });
    await bus.emit(database.db, 'participant.joined', { ...tenant, data });
    expect(told).toEqual(['in transaction', 'in transaction', 'committed']);
  });

  it('stamps an event with the time of its emission unless the producer gives one', async () => {
    const bus = new EventBus();
    const data = { user_id: 'u', display_name: 'U' };
    const before = Date.now();
    // A producer passing its optional time along, unset, still gets an event with a time.
    const unset = await bus.emit(database.db, 'participant.joined', { ...tenant, at: undefined, data });
    expect(unset.at).toBeGreaterThanOrEqual(before);
    expect(unset.at).toBeLessThanOrEqual(Date.now());
    const given = await bus.emit(database.db, 'participant.joined', { ...tenant, at: 7, data });
    expect(given.at).toBe(7);
  });
});
