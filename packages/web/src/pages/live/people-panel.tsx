import { useState } from 'react';
import { isStatus, vss } from '../../api';
import { nameOf, type RoomState } from '@vss/sdk';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog } from '../../ui/kit';

const KINDS = [
  ['cam', 'camera'],
  ['mic', 'microphone'],
  ['screen', 'screen'],
] as const;

/**
 * Who is in the call, by the names they joined with. The session's owner and the organisation's
 * admins can remove someone (not themselves): asked first, then the server disconnects them.
 */
export function PeoplePanel({
  sessionId,
  state,
  canRemove,
}: {
  sessionId: string;
  state: RoomState;
  canRemove: boolean;
}) {
  const [asking, setAsking] = useState<string | null>(null);
  const remove = useAction(async (userId: string) => {
    try {
      await vss.post('/v1/sessions/{sessionId}/participants/{userId}/remove', {
        params: { path: { sessionId, userId } },
      });
    } catch (err) {
      if (isStatus(err, 404)) throw new Error(`${nameOf(state, userId)} is not in the call any more.`);
      if (isStatus(err, 403))
        throw new Error("Only the session's owner or an admin of the organisation can remove people.");
      throw err;
    }
    setAsking(null);
  });
  const live = state.status === 'live';
  const who = asking ? nameOf(state, asking) : '';
  return (
    <section className="card people" aria-labelledby="people-title">
      <h2 id="people-title">People ({state.participants.length})</h2>
      <ul aria-labelledby="people-title">
        {state.participants.map((u) => {
          const on = KINDS.filter(([k]) => state.tracks[u]?.includes(k)).map(([, w]) => w);
          return (
            <li key={u} data-user={u}>
              <span className="person">
                <strong className="person-name">
                  <bdi>{nameOf(state, u)}</bdi>
                </strong>
                {u === state.self ? <span className="muted"> (you)</span> : null}
                <small className="muted">{on.length ? on.join(', ') : 'watching'}</small>
              </span>
              {canRemove && u !== state.self ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={!live}
                  aria-label={`Remove ${nameOf(state, u)}`}
                  onClick={() => {
                    remove.setError(null);
                    setAsking(u);
                  }}
                >
                  Remove
                </button>
              ) : null}
            </li>
          );
        })}
      </ul>
      {asking ? (
        <ConfirmDialog
          title={`Remove ${who} from the call?`}
          confirmLabel="Remove"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(asking)}
          onCancel={() => setAsking(null)}
        >
          <p>
            {who} is disconnected at once and sees that you removed them. If they joined with a join link that
            still works, revoke it on the session page to keep them from joining again.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
