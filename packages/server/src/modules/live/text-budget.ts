/**
 * Chat and director commands are text that a connection writes into the recording. Media has its
 * own bounds (codecs, picture sizes, the storage gate); text had only the 4000-character limit of
 * a chat message, so one connection could store megabytes of it a second. These bound it.
 */

/** Chat and director messages one connection may send per second, and the burst above it. */
export const TEXT_MESSAGES_PER_S = 10;
export const TEXT_MESSAGES_BURST = 50;
/** Bytes of chat and director commands (as recorded) one connection may send per second, and the burst. */
export const TEXT_BYTES_PER_S = 16 * 1024;
export const TEXT_BYTES_BURST = 64 * 1024;

/**
 * What one connection may send of chat and director commands: two token buckets, one of messages
 * (a person typing sends a few a second at most) and one of the bytes they record (a pasted page
 * now and then passes; a stream of them does not). A watch-and-chat guest has the same as anyone.
 */
export class TextRate {
  private messages = TEXT_MESSAGES_BURST;
  private bytes = TEXT_BYTES_BURST;
  private at: number;

  constructor(now = Date.now()) {
    this.at = now;
  }

  /** Takes one message of `size` bytes; false (and nothing taken) when over either rate. */
  take(size: number, now = Date.now()): boolean {
    const s = Math.max(0, now - this.at) / 1000;
    this.at = now;
    this.messages = Math.min(TEXT_MESSAGES_BURST, this.messages + s * TEXT_MESSAGES_PER_S);
    this.bytes = Math.min(TEXT_BYTES_BURST, this.bytes + s * TEXT_BYTES_PER_S);
    if (this.messages < 1 || this.bytes < size) return false;
    this.messages -= 1;
    this.bytes -= size;
    return true;
  }
}

/**
 * What one live session records of chat and director commands in this process, in bytes: past
 * `limit` they are still delivered to everyone live, and acknowledged `recorded: false`. With
 * several processes serving one session, each records up to the limit of what its own
 * participants send.
 */
export class SessionText {
  private used = 0;

  constructor(readonly limit: number) {}

  /** The rate of a connection that joins the session. */
  rate(): TextRate {
    return new TextRate();
  }

  /** Whether `size` more bytes may be recorded; counts them when so. */
  take(size: number): boolean {
    if (this.used + size > this.limit) return false;
    this.used += size;
    return true;
  }
}
