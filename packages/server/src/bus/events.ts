import { onCommit } from '../db/transaction.js';
import type { Db, Trx } from '../db/types.js';
import { newId } from '../lib/ids.js';
import { now } from '../lib/time.js';

/**
 * Every domain event type and the payload it carries. Empty here: the module that produces an
 * event declares it beside the code that emits it, by augmenting this interface
 * (`declare module '../../bus/events.js' { interface DomainEvents { 'session.created': Session } }`),
 * so the bus knows no module and the compiler still checks every `emit` and every `on`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEvents {}

/** A domain event's type: a key of `DomainEvents`. */
export type EventType = keyof DomainEvents & string;

/** A domain event: what happened, to which tenant, when, with its payload. */
export interface DomainEvent<K extends EventType = EventType> {
  id: string;
  type: K;
  /** ms since 1970 */
  at: number;
  orgId: string;
  projectId: string;
  sessionId: string | null;
  data: DomainEvents[K];
}

/** Any one domain event, narrowed by its `type`. */
export type AnyDomainEvent = { [K in EventType]: DomainEvent<K> }[EventType];

/** What an `emit` says of its event: the tenant, the session, the payload; when (default: now). */
export type Emitted<K extends EventType> = Omit<DomainEvent<K>, 'id' | 'type' | 'at'> & { at?: number };

type TxHandler<E> = (trx: Trx, event: E) => Promise<void>;
type Handler<E> = (event: E) => void;

/**
 * The internal event bus. Producers emit inside the transaction of the change; consumers either
 * write with that same transaction (`onTransactional`: e.g. enqueue webhook deliveries, so the
 * change and its deliveries commit together or not at all) or are told after commit (`on`:
 * wake-ups, live notifications). Producers never know who listens. Listeners of one type get that
 * type's payload; `onAnyTransactional` gets every event, narrowed by its `type`.
 */
export class EventBus {
  private readonly txHandlers = new Map<string, TxHandler<AnyDomainEvent>[]>();
  private readonly handlers = new Map<string, Handler<AnyDomainEvent>[]>();

  /** Registers a handler that runs inside the producer's transaction. Returns its removal. */
  onTransactional<K extends EventType>(type: K, handler: TxHandler<DomainEvent<K>>): () => void {
    return add(this.txHandlers, type, handler as TxHandler<AnyDomainEvent>);
  }

  /** Registers a handler of every event type that runs inside the producer's transaction. */
  onAnyTransactional(handler: TxHandler<AnyDomainEvent>): () => void {
    return add(this.txHandlers, '*', handler);
  }

  /** Registers a handler that runs after the producer's transaction committed. Returns its removal. */
  on<K extends EventType>(type: K, handler: Handler<DomainEvent<K>>): () => void {
    return add(this.handlers, type, handler as Handler<AnyDomainEvent>);
  }

  /** Registers a handler of every event type that runs after the producer's transaction committed. */
  onAny(handler: Handler<AnyDomainEvent>): () => void {
    return add(this.handlers, '*', handler);
  }

  /**
   * Emits an event as part of `db`'s transaction (or at once when `db` is not a transaction): the
   * transactional listeners run now, with it; the others once it commits. Returns the event.
   */
  async emit<K extends EventType>(db: Db | Trx, type: K, event: Emitted<K>): Promise<DomainEvent<K>> {
    // `at` is the producer's time when it gives one (an event stamped when its change happened).
    const full = { ...event, id: newId(), at: event.at ?? now(), type } as DomainEvent<K>;
    const any = full as unknown as AnyDomainEvent;
    for (const h of [...(this.txHandlers.get(type) ?? []), ...(this.txHandlers.get('*') ?? [])]) {
      await h(db as Trx, any);
    }
    onCommit(db, () => {
      for (const h of [...(this.handlers.get(type) ?? []), ...(this.handlers.get('*') ?? [])]) {
        try {
          h(any);
        } catch {
          // A listener's failure must not undo or disturb the committed change it is told about.
        }
      }
    });
    return full;
  }
}

function add<H>(map: Map<string, H[]>, type: string, handler: H): () => void {
  map.set(type, [...(map.get(type) ?? []), handler]);
  return () =>
    map.set(
      type,
      (map.get(type) ?? []).filter((h) => h !== handler),
    );
}
