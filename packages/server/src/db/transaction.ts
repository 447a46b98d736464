import type { Db, Trx } from './types.js';

const afterCommit = new WeakMap<object, Array<() => void>>();

/**
 * Runs `fn` in a transaction, or inside the caller's when `db` already is one (so that a service
 * can compose with the idempotency claim of the HTTP edge). Callbacks registered with
 * `onCommit` run once the outermost transaction has committed, never on rollback.
 */
export async function transaction<T>(db: Db | Trx, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  const callbacks: Array<() => void> = [];
  const result = await (db as Db).transaction().execute(async (trx) => {
    afterCommit.set(trx, callbacks);
    return fn(trx);
  });
  for (const cb of callbacks) cb();
  return result;
}

/** Schedules `cb` to run after the transaction commits; outside a transaction it runs at once. */
export function onCommit(db: Db | Trx, cb: () => void): void {
  const list = db.isTransaction ? afterCommit.get(db) : undefined;
  if (list) list.push(cb);
  else cb();
}
