// Where a session's segment files live, shared by the write thread and the readers. Plain
// JavaScript so that the worker (which runs without a TypeScript loader) can import it.
import { join } from 'node:path';

/** The folder of a session's segments, under the store's segments folder. */
export function sessionDir(/** @type {string} */ root, /** @type {string} */ sessionId) {
  return join(root, sessionId);
}

/** A segment's file: `<root>/<session>/<n>.seg`, n counting from 0 in the session. */
export function segmentPath(
  /** @type {string} */ root,
  /** @type {string} */ sessionId,
  /** @type {number} */ segment,
) {
  return join(root, sessionId, `${segment}.seg`);
}

/** The key prefix of a session's segments in object storage. */
export function sessionPrefix(/** @type {string} */ sessionId) {
  return `segments/${sessionId}/`;
}

/** A segment's key in object storage. */
export function segmentKey(/** @type {string} */ sessionId, /** @type {number} */ segment) {
  return `${sessionPrefix(sessionId)}${segment}.seg`;
}

/** Once a segment holds this many bytes it is sealed and the next append starts a new one. */
export const SEGMENT_MAX_BYTES = 64 * 1024 * 1024;
/** A segment open this long is sealed at its next append (so a long session uploads as it goes). */
export const SEGMENT_MAX_AGE_MS = 10 * 60 * 1000;
