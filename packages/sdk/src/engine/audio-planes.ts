/**
 * The samples of an AudioData as one Float32Array per channel, read in the format the browser
 * decoded to and converted here. Why not `copyTo(…, { format: 'f32-planar' })`: WebKitGTK 2.50's
 * conversion corrupts its heap (its web process aborts with "double free or corruption") for the
 * interleaved two-channel `f32` its Opus decoder gives, even for mono streams.
 */
export function audioPlanes(data: AudioData): Float32Array[] {
  const frames = data.numberOfFrames;
  const channels = data.numberOfChannels;
  const format = data.format;
  const planar = format?.endsWith('-planar') ?? false;
  const read = (planeIndex: number, length: number): Float32Array => {
    const bytes = data.allocationSize({ planeIndex });
    if (format?.startsWith('f32')) {
      const out = new Float32Array(bytes / 4);
      data.copyTo(out, { planeIndex });
      return out.subarray(0, length);
    }
    const raw = new ArrayBuffer(bytes);
    data.copyTo(raw, { planeIndex });
    const out = new Float32Array(length);
    if (format?.startsWith('s16')) {
      const v = new Int16Array(raw);
      for (let i = 0; i < length; i++) out[i] = v[i]! / 32768;
    } else if (format?.startsWith('s32')) {
      const v = new Int32Array(raw);
      for (let i = 0; i < length; i++) out[i] = v[i]! / 2147483648;
    } else {
      const v = new Uint8Array(raw);
      for (let i = 0; i < length; i++) out[i] = (v[i]! - 128) / 128;
    }
    return out;
  };
  if (planar) return Array.from({ length: channels }, (_, c) => read(c, frames));
  const all = read(0, frames * channels);
  return Array.from({ length: channels }, (_, c) => {
    const plane = new Float32Array(frames);
    for (let i = 0; i < frames; i++) plane[i] = all[i * channels + c]!;
    return plane;
  });
}
