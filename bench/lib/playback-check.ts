/**
 * What every reader of the playback benchmark checks, whichever way it reads: that every seq of
 * the recording arrived exactly once and that the payload bytes add up (`Checker`), and, for a body
 * read as bytes, that it is its own (`checkBody`: the markers of its kind and the seq stamped in).
 */
import { stampOf } from './playback-fixture.ts';

/** What a reader must find. */
export interface Expect {
  events: number;
  maxSeq: number;
  payloadBytes: number;
}

/** The caps of one playback answer, as the server has them (`MAX_WINDOW_*` of `@vss/server/tools`). */
export interface AnswerCaps {
  events: number;
  bytes: number;
}

/** Every seq exactly once, bytes adding up. */
export class Checker {
  private seen: Uint8Array;
  events = 0;
  bytes = 0;

  constructor(private readonly expect: Expect) {
    this.seen = new Uint8Array(expect.maxSeq + 1);
  }

  see(seq: number, bytes: number): void {
    if (!(seq >= 1 && seq <= this.expect.maxSeq)) throw new Error(`seq ${seq} is not in the recording`);
    if (this.seen[seq]) throw new Error(`seq ${seq} received twice`);
    this.seen[seq] = 1;
    this.events++;
    this.bytes += bytes;
  }

  finish(): void {
    if (this.events !== this.expect.events)
      throw new Error(`received ${this.events} events, the recording holds ${this.expect.events}`);
    for (let s = 1; s <= this.expect.maxSeq; s++)
      if (!this.seen[s]) throw new Error(`seq ${s} never received`);
    if (this.bytes !== this.expect.payloadBytes)
      throw new Error(
        `received ${this.bytes} payload bytes, the recording holds ${this.expect.payloadBytes}`,
      );
  }
}

/** The kind of a stream by its id: `media/<user>/cam` or `media/<user>/mic`. */
export const kindOf = (streamId: string): 'cam' | 'mic' => {
  if (streamId.endsWith('/cam')) return 'cam';
  if (streamId.endsWith('/mic')) return 'mic';
  throw new Error(`unexpected stream ${streamId}`);
};

/** A body read from the store: JPEG markers or the EVC1 magic, and its own seq inside. */
export function checkBody(seq: number, streamId: string, body: Buffer): void {
  const kind = kindOf(streamId);
  const good =
    kind === 'cam'
      ? body[0] === 0xff &&
        body[1] === 0xd8 &&
        body[2] === 0xff &&
        body[3] === 0xe0 &&
        body[body.length - 2] === 0xff &&
        body[body.length - 1] === 0xd9
      : body[0] === 0x45 && body[1] === 0x56 && body[2] === 0x43 && body[3] === 0x31;
  if (!good || stampOf(body, kind) !== seq)
    throw new Error(`body of seq ${seq} (${streamId}) is not its own`);
}
