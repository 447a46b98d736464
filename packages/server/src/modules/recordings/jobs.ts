import type { EventBus, EventType } from '../../bus/events.js';
import type { Config } from '../../config.js';
import type { JobKind, JobQueue } from '../../jobs/queue.js';
import type { StreamWriter } from '../../streams/writer.js';
import type { RecordingsService } from './service.js';
import { MINUTE_MS } from '../../lib/time.js';

declare module '../../bus/events.js' {
  interface DomainEvents {
    /** a step of the recording gave up, with no retry left */
    'recording.failed': RecordingFailedData;
  }
}

/** The job that announces `recording.ready` once a session has ended. */
export const FINALIZE_JOB = 'recording.finalize';
/** The job that seals a recording once announced: its segments closed, and stored in the bucket. */
export const SEAL_JOB = 'recording.seal';

interface FinalizePayload {
  session_id: string;
  org_id: string;
  project_id: string;
}

/** What `recording.failed` carries: the step that gave up, and why. */
export interface RecordingFailedData {
  stage: 'finalize' | 'seal';
  error: string;
}

/**
 * The recordings module's jobs. Once a session has ended its recording is announced by a job
 * enqueued in the transaction of the end, so a crash in between delays `recording.ready` but
 * cannot lose it. The announcement enqueues the sealing in its own transaction the same way: the
 * recording's last event (`recording.ready` in its timeline) is written by then, and a sealing
 * that fails (object storage unreachable) is retried without announcing twice. Either step that
 * fails for the last time (`RECORDING_RETRY_DELAYS_S` spent) announces `recording.failed`, in the
 * transaction that records the failure.
 */
export function recordingsJobs(deps: {
  config: Pick<Config, 'recordingRetryDelaysS' | 'dataDir'>;
  bus: EventBus;
  jobs: JobQueue;
  writer: Pick<StreamWriter, 'seal'>;
  recordings: Pick<RecordingsService, 'finalize'>;
}): JobKind<FinalizePayload>[] {
  // Each step enqueued in the transaction of the event that calls for it.
  const then = (event: EventType, kind: string) =>
    deps.bus.onTransactional(event, async (trx, e) => {
      if (!e.sessionId) return;
      await deps.jobs.enqueue(trx, kind, {
        session_id: e.sessionId,
        org_id: e.orgId,
        project_id: e.projectId,
      } satisfies FinalizePayload);
    });
  then('session.ended', FINALIZE_JOB);
  then('recording.ready', SEAL_JOB);
  const delays = deps.config.recordingRetryDelaysS;
  const step = (
    kind: string,
    stage: RecordingFailedData['stage'],
    options: { concurrency: number; leaseMs: number },
    run: (p: FinalizePayload) => Promise<void>,
  ): JobKind<FinalizePayload> => ({
    kind,
    ...options,
    retryDelayMs: (attempt) => {
      const s = delays[attempt - 1];
      return s === undefined ? undefined : Math.round(s * 1000);
    },
    async run(job) {
      await run(job.payload);
      return { ok: true };
    },
    async settle(trx, job, outcome, nextRunAt) {
      // Only the last failure is told: no retry is left.
      if (outcome.ok || nextRunAt !== null) return;
      const p = job.payload;
      // What went wrong, without this machine's paths: the receiver is someone else.
      const error = (outcome.error ?? `the ${stage} step failed`)
        .split(deps.config.dataDir)
        .join('$DATA_DIR');
      await deps.bus.emit(trx, 'recording.failed', {
        orgId: p.org_id,
        projectId: p.project_id,
        sessionId: p.session_id,
        data: { stage, error } satisfies RecordingFailedData,
      });
    },
  });
  return [
    step(FINALIZE_JOB, 'finalize', { concurrency: 4, leaseMs: MINUTE_MS }, (p) =>
      deps.recordings.finalize(p.session_id, p.org_id, p.project_id),
    ),
    step(SEAL_JOB, 'seal', { concurrency: 2, leaseMs: 120_000 }, (p) => deps.writer.seal(p.session_id)),
  ];
}
