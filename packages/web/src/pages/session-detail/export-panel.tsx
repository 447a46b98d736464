import { useState, type FormEvent } from 'react';
import { api, apiUrl } from '../../api';
import { formatBytes, formatDuration, formatTime } from '../../ui/format';
import { pickLabel } from '../../types';
import { useAction } from '../../ui/hooks';
import { Badge, ErrorNote, Field, Progress } from '../../ui/kit';
import type { ExportJob, Layout, Orientation } from './types';
import type { useExportJobs } from './export-jobs';

const STATUS_LABEL = {
  queued: 'Queued',
  processing: 'Rendering',
  completed: 'Ready',
  failed: 'Failed',
} as const;

/** One export job: its progress while rendering, its download once done, its error if it failed. */
function JobItem({ job, names }: { job: ExportJob; names: Record<string, string> }) {
  const what = `${job.layout === 'presenter' ? 'Presenter' : 'Grid'}, ${job.orientation}${
    job.focus ? `, focus ${names[job.focus] ?? job.focus}` : ''
  }${job.keep_gaps ? ', paused parts kept' : ''}`;
  return (
    <li className="card export-job">
      <div className="row">
        <strong>{what}</strong>
        {/* The state is what is read out as it changes (queued, rendering, ready, failed), not every percent. */}
        <span role="status">
          <span className="visually-hidden">Export state: </span>
          <Badge tone={job.status === 'failed' ? 'bad' : job.status === 'completed' ? 'ok' : 'warn'}>
            {STATUS_LABEL[job.status]}
          </Badge>
        </span>
        <span className="muted">started {formatTime(job.created_at)}</span>
      </div>
      {job.status === 'queued' ? (
        <Progress live={false} label="Export queued: waiting for a worker…" />
      ) : null}
      {job.status === 'processing' ? (
        <Progress
          live={false}
          label={`Rendering the MP4: ${Math.round(job.progress * 100)}%`}
          value={job.progress}
        />
      ) : null}
      {job.status === 'completed' ? (
        <p className="row">
          {/* A plain link: the browser downloads it with the login cookie (Content-Disposition). */}
          <a className="button" href={apiUrl(`/v1/exports/${job.job_id}/download`)} download>
            Download MP4
          </a>
          <span className="muted">
            {job.size_bytes !== null ? formatBytes(job.size_bytes) : ''}
            {job.duration_ms !== null ? `, ${formatDuration(job.duration_ms)}` : ''}
          </span>
        </p>
      ) : null}
      {job.status === 'failed' ? <ErrorNote error={job.error ?? 'the export failed'} /> : null}
    </li>
  );
}

/** Export the recording to MP4: layout, orientation, focus; every export of the session. */
export function ExportPanel(props: {
  sessionId: string;
  participants: string[];
  /** the names they joined with, by user_id */
  names: Record<string, string>;
  exports: ReturnType<typeof useExportJobs>;
}) {
  const [layout, setLayout] = useState<Layout>('grid');
  const [orientation, setOrientation] = useState<Orientation>('landscape');
  const [focus, setFocus] = useState('');
  const [keepGaps, setKeepGaps] = useState(false);
  const start = useAction(async () => {
    const { job_id } = await api<{ job_id: string }>('GET', `/v1/sessions/${props.sessionId}/export`, {
      query: {
        layout,
        orientation,
        focus: layout === 'presenter' && focus ? focus : undefined,
        keep_gaps: keepGaps ? 'true' : undefined,
      },
    });
    await props.exports.add(job_id);
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void start.run();
  };
  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export to MP4</h2>
      <form className="inline-form" onSubmit={onSubmit} aria-label="Export">
        <Field label="Layout" hint="Presenter: one person large, the others in a strip">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={layout}
              onChange={(e) => setLayout(e.target.value as Layout)}
            >
              <option value="grid">Grid</option>
              <option value="presenter">Presenter</option>
            </select>
          )}
        </Field>
        <Field label="Orientation">
          {(id) => (
            <select
              id={id}
              value={orientation}
              onChange={(e) => setOrientation(e.target.value as Orientation)}
            >
              <option value="landscape">Landscape (1280×720)</option>
              <option value="vertical">Vertical (720×1280)</option>
            </select>
          )}
        </Field>
        <Field label="Focus" hint="Presenter layout: who is shown large">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={focus}
              disabled={layout !== 'presenter'}
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
        <label className="check">
          <input type="checkbox" checked={keepGaps} onChange={(e) => setKeepGaps(e.target.checked)} />
          Keep paused parts (silent, showing names)
        </label>
        <button type="submit" disabled={start.busy}>
          {start.busy ? 'Queueing…' : 'Export MP4'}
        </button>
      </form>
      <ErrorNote error={start.error ?? props.exports.error} />
      {props.exports.jobs.length > 0 ? (
        <ul className="export-jobs" aria-label="Exports">
          {props.exports.jobs.map((j) => (
            <JobItem key={j.job_id} job={j} names={props.names} />
          ))}
        </ul>
      ) : (
        <p className="muted">
          No export yet. Every export of this session is listed here, with its download once ready.
        </p>
      )}
    </section>
  );
}
