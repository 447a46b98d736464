import type { SessionState } from '../types';
import { Badge } from './kit';

const STATE_LABEL = { created: 'not started', live: 'live', ended: 'ended' } as const;
const STATE_TONE = { created: 'idle', live: 'live', ended: 'ok' } as const;

/** A session's state as a coloured label: not started, live or ended. */
export function SessionStateBadge({ state }: { state: SessionState }) {
  return <Badge tone={STATE_TONE[state]}>{STATE_LABEL[state]}</Badge>;
}
