/**
 * The colour space of VP8 video: BT.601 (SMPTE 170M) YUV in limited range, the only one the format
 * has (RFC 6386 §9.2), so a VP8 stream never says which it is. Cameras give this (Chromium tags
 * its capture frames `smpte170m`), ffmpeg writes and reads it (the CLI bot, the export), and
 * what the dashboard publishes and draws must agree with them: a decoder left to guess labels its
 * pictures BT.709 and draws them with the wrong matrix (camera green 0,135,0 came out 0,77,0).
 */

/** What a VP8 decoder is told its pictures are, and what the publisher gives the VP8 encoder. */
export const VP8_COLOUR_SPACE: VideoColorSpaceInit = {
  primaries: 'smpte170m',
  transfer: 'smpte170m',
  matrix: 'smpte170m',
  fullRange: false,
};

/** YUV layouts the VP8 encoder takes as they are, without converting them. */
const YUV_FORMATS = new Set<VideoPixelFormat | null>(['I420', 'I420A', 'NV12']);

/**
 * True when a frame is already BT.601 limited-range YUV, so the encoder can take it unchanged.
 * Anything else (RGB from a canvas or a screen, BT.709 or full-range YUV) must be converted first:
 * the browser's encoder converts RGB with the BT.709 matrix and never tags the stream with it.
 */
export function isVp8Yuv(frame: VideoFrame): boolean {
  const cs = frame.colorSpace;
  return (
    YUV_FORMATS.has(frame.format) &&
    (cs.matrix === 'smpte170m' || cs.matrix === 'bt470bg') &&
    cs.fullRange === false
  );
}

/**
 * Converts RGBA pixels (as `getImageData` gives them) to one I420 picture in BT.601 limited range:
 * a Y plane, then U and V at half the width and height, each chroma sample the mean of its 2×2
 * block. `width` and `height` must be even.
 */
export function rgbaToI420(rgba: Uint8ClampedArray, width: number, height: number): Uint8Array {
  const ySize = width * height;
  const cw = width >> 1;
  const cSize = cw * (height >> 1);
  const out = new Uint8Array(ySize + 2 * cSize);
  // Integer BT.601 coefficients scaled by 256 (the usual 8-bit form of the matrix).
  for (let i = 0, p = 0; i < ySize; i++, p += 4) {
    out[i] = ((66 * rgba[p]! + 129 * rgba[p + 1]! + 25 * rgba[p + 2]! + 128) >> 8) + 16;
  }
  const row = width * 4;
  for (let cy = 0, c = 0; cy < height >> 1; cy++) {
    for (let cx = 0; cx < cw; cx++, c++) {
      const p = cy * 2 * row + cx * 8;
      const r = rgba[p]! + rgba[p + 4]! + rgba[p + row]! + rgba[p + row + 4]!;
      const g = rgba[p + 1]! + rgba[p + 5]! + rgba[p + row + 1]! + rgba[p + row + 5]!;
      const b = rgba[p + 2]! + rgba[p + 6]! + rgba[p + row + 2]! + rgba[p + row + 6]!;
      // the sums are 4× the block's mean: 1024 instead of 256 below
      out[ySize + c] = ((-38 * r - 74 * g + 112 * b + 512) >> 10) + 128;
      out[ySize + cSize + c] = ((112 * r - 94 * g - 18 * b + 512) >> 10) + 128;
    }
  }
  return out;
}
