/** UTF-8 both ways, strict on the way in. */

export const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly; a RangeError names what was not valid. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return fromUtf8.decode(bytes);
  } catch {
    throw new RangeError(`${what} is not valid UTF-8`);
  }
}
