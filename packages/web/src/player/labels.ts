/** Words for what the timeline records. */
import { formatDuration } from '../ui/format';
import type { Envelope, TileInfo } from './types';

/** Who an event is about, by the name they joined with. */
function who(e: Envelope, names: Record<string, string>): string {
  const id = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
  if (id === 'system') return 'The session';
  if (typeof e.data.display_name === 'string' && e.data.display_name) return e.data.display_name;
  return names[id] ?? id;
}

const KINDS: Record<string, string> = { cam: 'camera', mic: 'microphone', screen: 'screen share' };

function kindOf(e: Envelope): string {
  const kind = typeof e.data.kind === 'string' ? e.data.kind : '';
  return KINDS[kind] ?? 'a track';
}

/** A timeline event as a short sentence: "alice joined", "bob started the camera"; `names` by user_id. */
export function describeEvent(e: Envelope, names: Record<string, string> = {}): string {
  switch (e.type) {
    case 'session.started':
      return 'Session started';
    case 'session.ended':
      return 'Session ended';
    case 'participant.joined':
      return `${who(e, names)} joined`;
    case 'participant.left':
      return `${who(e, names)} left`;
    case 'participant.removed':
      return `${who(e, names)} was removed by the host`;
    case 'participant.redacted':
      return `${who(e, names)} was redacted`;
    case 'track.published':
      return `${who(e, names)} started the ${kindOf(e)}`;
    case 'track.unpublished':
      return `${who(e, names)} stopped the ${kindOf(e)}`;
    case 'recording.paused':
      return 'Recording paused';
    case 'recording.resumed':
      return typeof e.data.paused_ms === 'number'
        ? `Recording resumed (paused for ${formatDuration(e.data.paused_ms)})`
        : 'Recording resumed';
    case 'recording.rules_changed':
      return 'Recording rules changed';
    case 'recording.ready':
      return 'Recording ready';
    case 'export.completed':
      return 'Exported';
    case 'export.failed':
      return 'An export failed';
    default:
      return e.type;
  }
}

/** A tile's caption: the participant, and "screen" for a screen share. */
export function tileLabel(t: TileInfo): string {
  return t.kind === 'screen' ? `${t.name} (screen)` : t.name;
}
