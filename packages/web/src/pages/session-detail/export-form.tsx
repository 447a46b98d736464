import { useState, type FormEvent } from 'react';
import { vss } from '../../api';
import { formatDuration } from '../../ui/format';
import { pickLabel } from '../../types';
import { useAction } from '../../ui/hooks';
import { ErrorNote, Field } from '../../ui/kit';
import { checkClip, type ClipCheck, type Span } from './export-clip';
import { FileFields, type FileChoices } from '../../ui/export-fields';

/**
 * The export's options: video (layout, orientation, resolution, focus, names) or the sound alone,
 * paused parts, and an optional clip typed as times from the recording's start. A clip is checked
 * before anything is sent, against the manifest read again then (a session that just ended has
 * grown since the page opened); the export goes to `POST /v1/sessions/{id}/exports`.
 */
export function ExportForm(props: {
  sessionId: string;
  participants: string[];
  names: Record<string, string>;
  /** the recording's span as the panel last read it, for the hint */
  span?: Span;
  onQueued: (jobId: string) => Promise<void>;
}) {
  const [file, setFile] = useState<FileChoices>({
    format: 'mp4',
    layout: 'grid',
    orientation: 'landscape',
    resolution: '720p',
  });
  const { format, layout, orientation, resolution } = file;
  const [focus, setFocus] = useState('');
  const [showNames, setShowNames] = useState(true);
  const [keepGaps, setKeepGaps] = useState(false);
  const [clip, setClip] = useState({ from: '', to: '' });
  const [errors, setErrors] = useState<ClipCheck['errors']>({});
  const video = format === 'mp4';

  const start = useAction(async () => {
    // Checked as typed first (nothing is asked of the server for an end before the start)...
    let check = checkClip(clip);
    setErrors(check.errors);
    if (check.errors.from || check.errors.to) return;
    let range = {};
    if (check.from !== undefined || check.to !== undefined) {
      // ...then against the recording as it is now.
      const m = await vss.get('/v1/sessions/{sessionId}/manifest', {
        params: { path: { sessionId: props.sessionId } },
      });
      check = checkClip(clip, m);
      setErrors(check.errors);
      if (check.errors.from || check.errors.to) return;
      range = {
        ...(check.from !== undefined ? { from_ts: m.start_ts + check.from } : {}),
        ...(check.to !== undefined ? { to_ts: m.start_ts + check.to } : {}),
      };
    }
    const body = {
      format,
      ...(video
        ? {
            layout,
            orientation,
            resolution,
            names: showNames,
            ...(layout === 'presenter' && focus ? { focus } : {}),
          }
        : {}),
      ...(keepGaps ? { keep_gaps: true } : {}),
      ...range,
    };
    const { job_id } = await vss.post('/v1/sessions/{sessionId}/exports', {
      params: { path: { sessionId: props.sessionId } },
      body,
    });
    await props.onQueued(job_id);
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void start.run();
  };
  const typed = (which: 'from' | 'to', value: string) => {
    setClip((c) => ({ ...c, [which]: value }));
    setErrors((old) => ({ ...old, [which]: undefined }));
  };
  const length = props.span ? formatDuration(props.span.end_ts - props.span.start_ts) : null;

  return (
    <form className="export-form" onSubmit={onSubmit} aria-label="Export" noValidate>
      <div className="inline-form">
        <FileFields value={file} onChange={(c) => setFile((f) => ({ ...f, ...c }))} sound="hide" />
        {video ? (
          <>
            {layout === 'presenter' ? (
              <Field label="Focus" hint="Presenter layout: who is shown large">
                {(id, hint) => (
                  <select
                    id={id}
                    aria-describedby={hint}
                    value={focus}
                    onChange={(e) => setFocus(e.target.value)}
                  >
                    <option value="">Follow the recording’s director</option>
                    {props.participants.map((p) => (
                      <option key={p} value={p}>
                        {pickLabel(props.names, p)}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            ) : null}
          </>
        ) : null}
      </div>
      {video ? (
        <label className="check">
          <input type="checkbox" checked={showNames} onChange={(e) => setShowNames(e.target.checked)} />
          Show names
        </label>
      ) : null}
      <fieldset className="clip">
        <legend>Clip (optional)</legend>
        <p className="muted">
          Minutes and seconds from the start of the recording
          {length ? `, which is ${length} long` : ''}. Leave both empty to export all of it.
        </p>
        <div className="inline-form">
          <Field label="Start" error={errors.from}>
            {(id) => (
              <input
                id={id}
                value={clip.from}
                placeholder="0:00"
                autoComplete="off"
                aria-invalid={errors.from ? true : undefined}
                onChange={(e) => typed('from', e.target.value)}
              />
            )}
          </Field>
          <Field label="End" error={errors.to}>
            {(id) => (
              <input
                id={id}
                value={clip.to}
                placeholder={length ?? 'the end'}
                autoComplete="off"
                aria-invalid={errors.to ? true : undefined}
                onChange={(e) => typed('to', e.target.value)}
              />
            )}
          </Field>
        </div>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={keepGaps} onChange={(e) => setKeepGaps(e.target.checked)} />
        Keep paused parts (silent, showing names)
      </label>
      <button type="submit" disabled={start.busy}>
        {start.busy ? 'Queueing…' : video ? 'Export MP4' : 'Export audio'}
      </button>
      <ErrorNote error={start.error} />
    </form>
  );
}
