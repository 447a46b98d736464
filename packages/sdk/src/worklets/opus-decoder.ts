/**
 * Opus decoded in WebAssembly (the `opus-decoder` package: libopus compiled to wasm, 68 KB
 * gzipped), served as `/sdk/opus-decoder.js` and imported only by a browser whose own decoder
 * cannot be used (audio-out.ts says which), so that nobody else downloads it.
 */
export { OpusDecoder } from 'opus-decoder';
