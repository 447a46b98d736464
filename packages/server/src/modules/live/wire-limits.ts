/** A WebSocket message may carry at most 2 MiB: a media frame. */
export const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
/**
 * Any message that is not a media publish (chat, director, unpublish) is at most 64 KiB: chat
 * text is at most 4000 characters, and nothing else needs more.
 */
export const MAX_CONTROL_BYTES = 64 * 1024;
/** JSON messages nest at most this deep; the protocol's own go three levels down. */
export const MAX_JSON_DEPTH = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the JSON text in `data` nests objects and arrays at most `max` deep. One pass over the
 * bytes before JSON.parse, which would otherwise spend seconds on a few hundred deeply nested
 * messages: strings are skipped with a native search for their closing quote (a media publish's
 * base64 body costs next to nothing), and the scan stops at the first level too deep. It does not
 * validate the JSON: JSON.parse does, afterwards.
 */
export function jsonDepthWithin(data: Buffer, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === QUOTE) {
      // To the closing quote: one not preceded by an odd number of backslashes.
      for (;;) {
        const end = data.indexOf(QUOTE, i + 1);
        if (end < 0) return true; // unterminated: JSON.parse refuses it
        let slashes = 0;
        while (data[end - 1 - slashes] === BACKSLASH) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return false;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return true;
}
