/**
 * Bytes of received media held by this process until they are durable: from the moment the hub
 * accepts a publish, through the session's ordering chain and the stream writer's batches, to the
 * commit. Past the limit, `room()` asks producers to wait; the live gateway then stops reading
 * from publishers' sockets, so TCP holds further media at the senders. Nothing is refused or
 * dropped: a server that cannot record as fast as it is sent slows its publishers down instead of
 * growing without bound.
 */
export class IngestBudget {
  private held = 0;
  private waiters: Array<() => void> = [];
  /** the most bytes held at once since start */
  maxHeld = 0;

  constructor(readonly limitBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  take(bytes: number): void {
    this.held += bytes;
    if (this.held > this.maxHeld) this.maxHeld = this.held;
  }

  /** Takes `bytes` now; the function returned gives them back, once however often it is called. */
  hold(bytes: number): () => void {
    this.take(bytes);
    let held = true;
    return () => {
      if (held) this.give(bytes);
      held = false;
    };
  }

  give(bytes: number): void {
    this.held -= bytes;
    if (this.waiters.length && this.held <= this.limitBytes / 2) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Null within the limit while nobody waits; otherwise a promise that resolves once half the limit
   * is free again. While some wait, everyone waits: producers that kept going just under the limit
   * could otherwise keep the waiting ones out indefinitely.
   */
  room(): Promise<void> | null {
    if (this.held <= this.limitBytes && this.waiters.length === 0) return null;
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
