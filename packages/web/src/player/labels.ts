/** Words for what the timeline records. */
import type { Envelope, TileInfo } from './types';

function who(e: Envelope): string {
  const id = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
  return id === 'system' ? 'The session' : id;
}

const KINDS: Record<string, string> = { cam: 'camera', mic: 'microphone', screen: 'screen share' };

function kindOf(e: Envelope): string {
  const kind = typeof e.data.kind === 'string' ? e.data.kind : '';
  return KINDS[kind] ?? 'a track';
}

/** A timeline event as a short sentence: "alice joined", "bob started the camera". */
export function describeEvent(e: Envelope): string {
  switch (e.type) {
    case 'session.started':
      return 'Session started';
    case 'session.ended':
      return 'Session ended';
    case 'participant.joined':
      return `${who(e)} joined`;
    case 'participant.left':
      return `${who(e)} left`;
    case 'participant.redacted':
      return `${who(e)} was redacted`;
    case 'track.published':
      return `${who(e)} started the ${kindOf(e)}`;
    case 'track.unpublished':
      return `${who(e)} stopped the ${kindOf(e)}`;
    default:
      return e.type;
  }
}

/** A tile's caption: the participant, and "screen" for a screen share. */
export function tileLabel(t: TileInfo): string {
  return t.kind === 'screen' ? `${t.userId} (screen)` : t.userId;
}
