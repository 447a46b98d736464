export * from './protocol.js';
export * from './live-client.js';
