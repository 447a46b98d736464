/** The envelope chat, director and timeline events travel in (docs/protocol.md), live and recorded. */

/** `{ v, type, ts, actor, data }` as sent and recorded. */
export interface EnvelopeBody {
  v: number;
  type: string;
  ts: number;
  actor: string;
  data: Record<string, unknown>;
}

const utf8 = new TextDecoder();

/** Reads an envelope from a payload (UTF-8 JSON); null when the payload is not one. */
export function readEnvelope(payload: Uint8Array): EnvelopeBody | null {
  try {
    const e = JSON.parse(utf8.decode(payload)) as Partial<EnvelopeBody> | null;
    if (!e || typeof e !== 'object' || typeof e.type !== 'string' || typeof e.ts !== 'number') return null;
    return {
      v: typeof e.v === 'number' ? e.v : 1,
      type: e.type,
      ts: e.ts,
      actor: typeof e.actor === 'string' ? e.actor : 'system',
      data: e.data && typeof e.data === 'object' ? e.data : {},
    };
  } catch {
    return null;
  }
}
