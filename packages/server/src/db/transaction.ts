import { sql } from 'kysely';
import type { Db, Trx } from './types.js';

const afterCommit = new WeakMap<object, Array<() => void>>();
const groups = new WeakMap<object, GroupCommit>();

/** At most this many transactions share one commit. */
const MAX_GROUP = 64;

/**
 * Runs `fn` in a transaction, or inside the caller's when `db` already is one (so that a service
 * can compose with the idempotency claim of the HTTP edge). Callbacks registered with
 * `onCommit` run once the outermost transaction has committed, never on rollback. On a database
 * opened with `shareCommits`, concurrent transactions commit together (see GroupCommit).
 */
export async function transaction<T>(db: Db | Trx, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  const group = groups.get(db);
  if (group) return group.run(fn);
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

/**
 * Makes the transactions of `db` share commits. For SQLite, whose one write connection runs one
 * transaction at a time anyway: there a durable commit (the WAL frames written, the locks taken
 * and released) costs more than the insert it commits — 88 µs of a 125 µs create measured with
 * Fastify and better-sqlite3 alone on a 2-core VM, 71 µs in all when creates share commits.
 */
export function shareCommits(db: Db): void {
  groups.set(db, new GroupCommit(db));
}

/** How many commits the shared transactions of `db` took, and how many transactions they held. */
export function commitStats(db: Db): { commits: number; transactions: number } | null {
  const group = groups.get(db);
  return group ? { commits: group.commits, transactions: group.transactions } : null;
}

interface Pending {
  fn: (trx: Trx) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown; callbacks: Array<() => void> } | { ok: false; error: unknown };

/**
 * Group commit. A transaction waits for the next turn of the event loop, or for the group under
 * way (as it would for the connection), and every transaction that gathered meanwhile runs in one database
 * transaction, each in a savepoint of its own, and commits once. Each caller is answered only after
 * that commit: durability is the same as a commit of its own. A transaction that fails is rolled
 * back to its savepoint and fails alone. When the group as a whole fails (an error that ends the
 * SQLite transaction, a refused commit), nothing of it was kept and each member runs again on its
 * own, so that each meets the outcome it would have met alone. A transaction alone runs without a
 * savepoint, exactly as before. A throwing onCommit callback fails its own caller only. Members run one after the other, so what one
 * awaits outside the database delays the rest, as holding the connection always did.
 */
class GroupCommit {
  private queue: Pending[] = [];
  private running = false;
  /** database commits attempted, and the transactions they held */
  commits = 0;
  transactions = 0;

  constructor(private readonly db: Db) {}

  run<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      // Started on the next turn of the event loop, after the requests already read from their
      // sockets have been handled: on SQLite a transaction runs start to commit without yielding to
      // I/O, so started at once every group would be a group of one.
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commit(this.queue.splice(0, MAX_GROUP));
    } finally {
      this.running = false;
    }
  }

  private async commit(members: Pending[]): Promise<void> {
    if (members.length === 1) return this.alone(members[0]!);
    const outcomes: Outcome[] = [];
    this.commits++;
    this.transactions += members.length;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const member of members) {
          const callbacks: Array<() => void> = [];
          afterCommit.set(trx, callbacks);
          await sql`savepoint grouped`.execute(trx);
          try {
            const value = await member.fn(trx);
            await sql`release savepoint grouped`.execute(trx);
            outcomes.push({ ok: true, value, callbacks });
          } catch (error) {
            // Throws in turn when the error ended the whole SQLite transaction (SQLITE_FULL, IOERR…).
            await sql`rollback to savepoint grouped`.execute(trx);
            await sql`release savepoint grouped`.execute(trx);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch {
      // Nothing of the group was kept: a member's error ended the transaction, or the commit was
      // refused (a deferred constraint, a full disk). Which member caused it is unknown, so each runs
      // again on its own and meets the outcome it would have met alone; a member's work was rolled
      // back and its onCommit callbacks dropped, so running it again is a retry.
      for (const member of members) await this.alone(member);
      return;
    }
    members.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) settle(member, outcome.value, outcome.callbacks);
      else member.reject(outcome.error);
    });
  }

  /** One transaction on its own, without a savepoint: exactly what `transaction()` does unshared. */
  private async alone(member: Pending): Promise<void> {
    this.commits++;
    this.transactions++;
    const callbacks: Array<() => void> = [];
    let value: unknown;
    let own: { error: unknown } | null = null;
    try {
      value = await this.db.transaction().execute(async (trx) => {
        afterCommit.set(trx, callbacks);
        try {
          return await member.fn(trx);
        } catch (error) {
          own = { error };
          throw error;
        }
      });
    } catch (error) {
      // When the error ended the SQLite transaction itself, Kysely's ROLLBACK fails in turn
      // ("no transaction is active") and would hide it: the caller gets its own error.
      return member.reject(own ? (own as { error: unknown }).error : error);
    }
    settle(member, value, callbacks);
  }
}

/**
 * Runs a committed member's callbacks, then answers it. A callback that throws fails its own
 * caller (after the commit, as unshared) and nobody else.
 */
function settle(member: Pending, value: unknown, callbacks: Array<() => void>): void {
  try {
    for (const cb of callbacks) cb();
  } catch (error) {
    return member.reject(error);
  }
  member.resolve(value);
}
