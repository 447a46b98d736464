import type { FastifyBaseLogger } from 'fastify';
import type { StreamWriter } from '../../streams/writer.js';
import type { LiveSession } from './connection.js';
import type { Sequencer } from './sequencer.js';
import { envelopeBytes } from './timeline-envelope.js';

/** Writes timeline events (`session.started`, `participant.joined`, …) to a session's `events` stream. */
export class Timeline {
  constructor(
    private readonly deps: { sequencer: Sequencer; writer: StreamWriter; log: FastifyBaseLogger },
  ) {}

  /** Appends an event in turn with the live session's other messages (its chain). */
  async append(
    live: LiveSession,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts: number,
  ): Promise<void> {
    const run = live.chain.then(() => this.record(live.session.id, type, actor, data, ts));
    live.chain = run.catch(() => {});
    await run;
  }

  /**
   * Sequences an event and queues it for writing. Callers already inside the session's chain use
   * this directly: chaining again from inside the chain would wait on itself.
   */
  async record(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts: number,
  ): Promise<void> {
    const seq = await this.deps.sequencer.next(sessionId);
    const durable = this.deps.writer.append({
      sessionId,
      seq,
      streamId: 'events',
      ts,
      body: envelopeBytes(type, ts, actor, data),
    });
    durable.catch((err) => this.deps.log.error({ err }, 'timeline write failed'));
  }
}
