import { vss } from '../../api';
import { formatBytes, formatDuration, formatTime } from '../../ui/format';
import { useLoad } from '../../ui/hooks';
import { Badge, ErrorNote, Progress } from '../../ui/kit';
import { describeExport } from './export-clip';
import { ExportForm } from './export-form';
import type { ExportJob } from './types';
import type { useExportJobs } from './export-jobs';

const STATUS_LABEL = {
  queued: 'Queued',
  processing: 'Rendering',
  completed: 'Ready',
  failed: 'Failed',
} as const;

/**
 * One export job: what it is, its progress while rendering, its download once done, its error if
 * it failed. `start`: the recording's start (ms since 1970), which a clip is shown from.
 */
function JobItem({ job, names, start }: { job: ExportJob; names: Record<string, string>; start?: number }) {
  const what = describeExport(job, names, start);
  const kind = job.format === 'm4a' ? 'M4A' : 'MP4';
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
          label={`Rendering the ${kind}: ${Math.round(job.progress * 100)}%`}
          value={job.progress}
        />
      ) : null}
      {job.status === 'completed' ? (
        <p className="row">
          {/* A plain link: the browser downloads it with the login cookie (Content-Disposition). */}
          <a className="button" href={`/v1/exports/${encodeURIComponent(job.job_id)}/download`} download>
            Download {kind}
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

/**
 * Export the recording: to an MP4 or its sound alone, whole or a clip; every export of the session.
 * The manifest is read here for the recording's start, which clips are typed and shown from.
 */
export function ExportPanel(props: {
  sessionId: string;
  participants: string[];
  /** the names they joined with, by user_id */
  names: Record<string, string>;
  exports: ReturnType<typeof useExportJobs>;
}) {
  const { sessionId } = props;
  const manifest = useLoad(
    (signal) => vss.get('/v1/sessions/{sessionId}/manifest', { params: { path: { sessionId } }, signal }),
    [sessionId],
  );
  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <ExportForm
        sessionId={sessionId}
        participants={props.participants}
        names={props.names}
        span={manifest.data}
        onQueued={props.exports.add}
      />
      <ErrorNote error={props.exports.error} />
      {props.exports.jobs.length > 0 ? (
        <ul className="export-jobs" aria-label="Exports">
          {props.exports.jobs.map((j) => (
            <JobItem key={j.job_id} job={j} names={props.names} start={manifest.data?.start_ts} />
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
