import { onCommit } from '../db/transaction.js';
import type { Db, Trx } from '../db/types.js';

/** A domain event: what happened, to which tenant, when, with its payload. */
export interface DomainEvent<T = unknown> {
  id: string;
  type: string;
  /** ms since 1970 */
  at: number;
  orgId: string;
  projectId: string;
  sessionId: string | null;
  data: T;
}

type TxHandler = (trx: Trx, event: DomainEvent) => Promise<void>;
type Handler = (event: DomainEvent) => void;

/**
 * The internal event bus. Producers publish inside the transaction of the change; consumers
 * either write with that same transaction (`onTransactional`: e.g. enqueue webhook deliveries,
 * so the change and its deliveries commit together or not at all) or are told after commit
 * (`on`: wake-ups, live notifications). Producers never know who listens.
 */
export class EventBus {
  private readonly txHandlers = new Map<string, TxHandler[]>();
  private readonly handlers = new Map<string, Handler[]>();

  /**
   * Registers a handler that runs inside the producer's transaction. `*` receives every type.
   * Returns the function that removes it.
   */
  onTransactional(type: string, handler: TxHandler): () => void {
    this.txHandlers.set(type, [...(this.txHandlers.get(type) ?? []), handler]);
    return () =>
      this.txHandlers.set(
        type,
        (this.txHandlers.get(type) ?? []).filter((h) => h !== handler),
      );
  }

  /** Registers a handler that runs after the producer's transaction committed. `*` receives every type. */
  on(type: string, handler: Handler): () => void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
    return () =>
      this.handlers.set(
        type,
        (this.handlers.get(type) ?? []).filter((h) => h !== handler),
      );
  }

  /** Publishes an event as part of `db`'s transaction (or at once when `db` is not a transaction). */
  async publish(db: Db | Trx, event: DomainEvent): Promise<void> {
    for (const h of [...(this.txHandlers.get(event.type) ?? []), ...(this.txHandlers.get('*') ?? [])]) {
      await h(db as Trx, event);
    }
    onCommit(db, () => {
      for (const h of [...(this.handlers.get(event.type) ?? []), ...(this.handlers.get('*') ?? [])]) {
        try {
          h(event);
        } catch {
          // A listener's failure must not undo or disturb the committed change it is told about.
        }
      }
    });
  }
}
