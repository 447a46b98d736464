/**
 * What tools outside the server may use of it, on purpose: this module only re-exports, and it is
 * the server's one public seam besides its HTTP API (package.json "exports": `@vss/server/tools`).
 * The benchmarks in bench/ import the server through it and through nothing else (an eslint rule
 * says so), so that a change inside the server breaks them only where it changes what is here.
 *
 * - the stream store, to write a recording's fixture straight into a DATA_DIR the server then opens
 *   (`sqliteStreamStore`), and the server's naming of segment files (`segmentPath`);
 * - the limits a benchmark must match: the caps of one playback answer, the live gateway's message
 *   rate per connection, the configuration's defaults (`loadConfig`);
 * - the export graph's pieces that a bare ffmpeg baseline must reproduce exactly: the encoder
 *   settings, the background colour, the grid layout, the name bars and their font, and the ffmpeg
 *   the server chooses.
 */
export { loadConfig } from './config.js';
export { sqliteStreamStore } from './streams/sqlite.js';
export type { StreamEvent, StreamStore } from './streams/store.js';
export { segmentPath } from './streams/segment-files.js';
export { MAX_WINDOW_BYTES, MAX_WINDOW_EVENTS } from './modules/recordings/service.js';
export { RATE_PER_S as LIVE_MESSAGES_PER_S } from './modules/live/message-guard.js';
export { locateFfmpeg, type Ffmpeg } from './modules/exports/ffmpeg.js';
export { measureWith } from './modules/exports/font-metrics.js';
export { nameFont } from './modules/exports/fonts.js';
export { AAC, BACKGROUND, encoderArgs, X264 } from './modules/exports/graph.js';
export { canvasOf, gridRects, type Rect } from './modules/exports/layout.js';
export { barPicture, nameBar } from './modules/exports/name-bar.js';
