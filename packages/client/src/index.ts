export * from '@vss/protocol';
export * from './live-client.js';
export * from './rest.js';
export type { paths, components, webhooks, operations } from './generated/openapi.js';
