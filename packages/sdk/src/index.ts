/**
 * @vss/sdk: a vss call in any web page, framework-free.
 *
 *   import { joinRoom } from 'https://vss.example.com/sdk/vss.js';
 *   const room = await joinRoom({ token, container: document.querySelector('#call') });
 *
 * `joinRoom` and `Room` are the surface an app needs (see room.ts). Below them, the media engine
 * the dashboard is built on, exported for apps that draw a room of their own: `LiveRoom` (one
 * participant's connection, publishing and receiving, as a store of `RoomState`), device lists
 * and level meters, the decoders and the sound mix the replay player uses, and how a recording's
 * rules read.
 */
export {
  joinRoom,
  readToken,
  Room,
  RoomError,
  type DeviceChoice,
  type JoinOptions,
  type Participant,
  type RoomEvents,
} from './room';
export { mountEmbed } from './embed';

// The engine.
export { LiveRoom } from './engine/live-room';
export type { RoomOptions } from './engine/room-options';
export {
  focusOf,
  nameOf,
  type ChatLine,
  type Layout,
  type RoomState,
  type RoomStatus,
} from './engine/room-state';
export { listDevices, LevelMeter, type DeviceLists, type DeviceOption } from './engine/devices';
export { capture, type Capture, type Devices } from './engine/local-media';
export { deviceBusy } from './engine/device-busy';
export { presenterTile, type PresenterTile } from './engine/presenter';
export { AudioOut, SOUND_UNSUPPORTED, watchSound } from './engine/audio-out';
export { readEnvelope, type EnvelopeBody } from './engine/envelope';
export { isKeyPayload, VideoTrackDecoder } from './engine/video-track';
export * from './recording';
