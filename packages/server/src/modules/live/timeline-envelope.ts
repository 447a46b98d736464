/** A timeline, chat or director record as stored: `{ v: 1, type, ts, actor, data }`, `ts` in ms since 1970, `actor` a user_id or `system`. */
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
