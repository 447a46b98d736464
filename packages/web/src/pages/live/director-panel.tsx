import { useState } from 'react';
import { errorMessage } from '../../api';
import type { LiveRoom } from '@vss/sdk';
import { focusOf, nameOf, type Layout, type RoomState } from '@vss/sdk';
import { ErrorNote, Field } from '../../ui/kit';

/** The director's controls: everybody's layout and who is shown large; recorded on the `director` stream. */
export function DirectorPanel({ room, state }: { room: LiveRoom; state: RoomState }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** the focus picked in the list and not yet sent (null: the list shows the current focus) */
  const [choice, setChoice] = useState<string | null>(null);
  const live = state.status === 'live';
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const focus = focusOf(state) ?? '';
  // Why a button: a select fires a change on every arrow key, and each focus change goes to
  // everyone and into the recording; the choice is only sent when the person confirms it.
  const picked = choice !== null && state.participants.includes(choice) ? choice : focus;
  return (
    <section className="card director" aria-labelledby="director-title">
      <h2 id="director-title">Director</h2>
      <p className="muted">Changes apply to everyone in the session and are kept in the recording.</p>
      <fieldset disabled={!live || busy}>
        <legend>Layout</legend>
        {(['grid', 'presenter'] as Layout[]).map((l) => (
          <label className="check" key={l}>
            <input
              type="radio"
              name="layout"
              value={l}
              checked={state.layout === l}
              onChange={() => void run(() => room.setLayout(l))}
            />{' '}
            {l === 'grid' ? 'Grid' : 'Presenter'}
          </label>
        ))}
      </fieldset>
      <form
        className="focus-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => room.setFocus(picked)).then(() => setChoice(null));
        }}
      >
        <Field label="Focus" hint="Shown large in the presenter layout, unless a screen is shared.">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={picked}
              disabled={!live || busy}
              onChange={(e) => setChoice(e.target.value)}
            >
              {state.participants.map((u) => (
                <option key={u} value={u}>
                  {/* An option holds text only: the name is isolated by U+2068 … U+2069 instead of <bdi>. */}
                  {`\u2068${nameOf(state, u)}\u2069${u === state.self ? ' (you)' : ''}`}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" className="secondary" disabled={!live || busy || picked === state.focus}>
          Set focus
        </button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
