import { useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, isStatus, vss, type Schemas } from '../../api';
import { formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/hooks';
import { ErrorNote, Loading } from '../../ui/kit';
import {
  FileFields,
  type Format,
  type Layout,
  type Orientation,
  type Resolution,
} from '../../ui/export-fields';
import './auto-export.css';

/** A project's auto-export preset, as `GET /v1/projects/{projectId}/auto-export` answers it. */
type Preset = Schemas['AutoExport'];

/** What the form edits: every option, the export's default where the preset has none. */
interface Choices {
  enabled: boolean;
  layout: Layout;
  orientation: Orientation;
  resolution: Resolution;
  format: Format;
  names: boolean;
  keepGaps: boolean;
}

function choicesOf(p: Preset): Choices {
  const o = p.options;
  return {
    enabled: p.enabled,
    layout: o.layout ?? 'grid',
    orientation: o.orientation ?? 'landscape',
    resolution: o.resolution ?? '720p',
    format: o.format ?? 'mp4',
    names: o.names ?? true,
    keepGaps: o.keep_gaps ?? false,
  };
}

/** An error as a person reads it here: who may change the setting, rather than a role's name. */
function said(err: unknown): string {
  if (isStatus(err, 403))
    return 'Only owners and admins of the organisation can change how its sessions are exported.';
  if (isStatus(err, 404))
    return 'This project could not be found: it may belong to another organisation. Reload the page.';
  return errorMessage(err);
}

/**
 * The project's auto-export: whether every session is exported once its recording is ready, and
 * how (the options of an export from the session page, but for every session).
 */
export function AutoExportSettings({ projectId }: { projectId: string }) {
  const titleId = useId();
  const path = { projectId };
  const loaded = useLoad(
    (signal) => vss.get('/v1/projects/{projectId}/auto-export', { params: { path }, signal }),
    [projectId],
  );
  const [choices, setChoices] = useState<Choices | null>(null);
  const [saved, setSaved] = useState<Preset | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => {
    if (loaded.data) {
      setChoices(choicesOf(loaded.data));
      setSaved(loaded.data);
    }
  }, [loaded.data]);
  const save = useAction(async (c: Choices) => {
    setStatus(null);
    try {
      const p = await vss.put('/v1/projects/{projectId}/auto-export', {
        params: { path },
        body: {
          enabled: c.enabled,
          options: {
            format: c.format,
            layout: c.layout,
            orientation: c.orientation,
            resolution: c.resolution,
            names: c.names,
            keep_gaps: c.keepGaps,
          },
        },
      });
      setSaved(p);
      setChoices(choicesOf(p));
      setStatus(
        p.enabled
          ? 'Saved. Every session of this project will be exported once it ends.'
          : 'Saved. Sessions of this project are not exported automatically.',
      );
    } catch (err) {
      throw new Error(said(err));
    }
  });
  const set = (patch: Partial<Choices>) => {
    setStatus(null);
    setChoices((c) => (c ? { ...c, ...patch } : c));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (choices) void save.run(choices);
  };
  const audio = choices?.format === 'm4a';
  return (
    <section className="auto-export" aria-labelledby={titleId}>
      <h3 id={titleId}>Export every session automatically</h3>
      <p className="muted">
        Once a session has ended and its recording is ready, it is exported with these settings, without
        anyone asking. The file appears on the session’s page, and your webhooks receive{' '}
        <code>export.completed</code>.
      </p>
      <ErrorNote error={loaded.error} />
      {!choices ? (
        loaded.error ? null : (
          <Loading label="Loading the export settings…" />
        )
      ) : (
        <form className="auto-export-form" onSubmit={submit} aria-labelledby={titleId}>
          <label className="check">
            <input
              type="checkbox"
              checked={choices.enabled}
              onChange={(e) => set({ enabled: e.target.checked })}
            />
            Export every session of this project automatically
          </label>
          <fieldset disabled={!choices.enabled} className="auto-export-fields">
            <legend className="visually-hidden">How each session is exported</legend>
            <FileFields value={choices} onChange={set} sound="disable" />
          </fieldset>
          <fieldset disabled={!choices.enabled} className="auto-export-checks">
            <legend className="visually-hidden">Names and paused parts</legend>
            <label className="check">
              <input
                type="checkbox"
                checked={choices.names}
                disabled={audio}
                onChange={(e) => set({ names: e.target.checked })}
              />
              Show each person’s name on their picture
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={choices.keepGaps}
                onChange={(e) => set({ keepGaps: e.target.checked })}
              />
              Keep paused parts (silent, showing names)
            </label>
          </fieldset>
          <div className="row">
            <button type="submit" disabled={save.busy}>
              {save.busy ? 'Saving…' : 'Save export settings'}
            </button>
            {saved?.updated_at ? (
              <span className="muted">Last changed {formatTime(saved.updated_at)}</span>
            ) : null}
          </div>
          {status ? <p role="status">{status}</p> : null}
          <ErrorNote error={save.error} />
        </form>
      )}
    </section>
  );
}
