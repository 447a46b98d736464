/**
 * The live protocol's wire formats, shared by the server and every client: JSON messages,
 * the binary media frame, the EVC1 container of WebCodecs chunks, and webhook signatures.
 * Works on Uint8Array so that it runs in browsers and in Node alike.
 */

export * from './messages.js';
export * from './binary.js';
export * from './media.js';
export * from './recording.js';
export * from './webhooks.js';
export * from './hold-ups.js';
export * from './uplink-rule.js';
