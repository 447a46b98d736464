/** A timeline, chat or director record: `{ v: 1, type, ts, actor, data }` (decisions §6, §7). */
export interface TimelineEnvelope {
  v: 1;
  type: string;
  ts: number;
  actor: string;
  data: Record<string, unknown>;
}

/** The stored bytes of an envelope. */
export function envelopeBytes(
  type: string,
  ts: number,
  actor: string,
  data: Record<string, unknown>,
): Buffer {
  const e: TimelineEnvelope = { v: 1, type, ts, actor, data };
  return Buffer.from(JSON.stringify(e), 'utf8');
}
