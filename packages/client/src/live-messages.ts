/** The messages a live client sends besides publishes of bytes, written once over `publish` and `send`. */
import type { KeyframeRequestFrame, TrackKind, UnpublishFrame } from '@vss/protocol';
import { utf8 } from './live-internals.js';
import type { DirectorCommand, PublishOptions } from './live-types.js';

export abstract class LiveMessages {
  abstract publish(streamType: string, payload: Uint8Array, opts?: PublishOptions): Promise<number | void>;
  protected abstract send(data: string | Uint8Array): Promise<void>;

  /** Publishes a chat message: UTF-8 JSON `{ text }` on stream `chat` (JSON frame unless `binary`). */
  publishChat(text: string, opts: PublishOptions & { ack: true }): Promise<number>;
  publishChat(text: string, opts?: PublishOptions & { ack?: false }): Promise<void>;
  publishChat(text: string, opts?: PublishOptions): Promise<number | void>;
  publishChat(text: string, opts?: PublishOptions): Promise<number | void> {
    // Why binary: false by default: binary frames are offered for media; chat stays JSON.
    return this.publish('chat', utf8.encode(JSON.stringify({ text })), { binary: false, ...opts });
  }

  /** Publishes a director command on stream `director` (JSON frame unless `binary`). */
  publishDirector(command: DirectorCommand, opts: PublishOptions & { ack: true }): Promise<number>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions & { ack?: false }): Promise<void>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions): Promise<number | void>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions): Promise<number | void> {
    return this.publish('director', utf8.encode(JSON.stringify(command)), { binary: false, ...opts });
  }

  /**
   * Asks for a key frame of `userId`'s `track` (after a decoding error): the server passes it to
   * the publisher, at most once per second per track from one receiver (more are refused with
   * `RATE_LIMITED`).
   */
  requestKeyFrame(userId: string, track: TrackKind): Promise<void> {
    return this.send(
      JSON.stringify({ type: 'keyframe', user_id: userId, track } satisfies KeyframeRequestFrame),
    );
  }

  /** Stops a media track: sends `{ type: 'unpublish', stream_type }`. */
  unpublish(streamType: string): Promise<void> {
    return this.send(JSON.stringify({ type: 'unpublish', stream_type: streamType } satisfies UnpublishFrame));
  }
}
