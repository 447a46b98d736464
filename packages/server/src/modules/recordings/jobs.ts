import type { EventBus } from '../../bus/events.js';
import type { JobKind, JobQueue } from '../../jobs/queue.js';
import type { StreamWriter } from '../../streams/writer.js';
import type { RecordingsService } from './service.js';

/** The job that announces `recording.ready` once a session has ended. */
export const FINALIZE_JOB = 'recording.finalize';
/** The job that seals a recording once announced: its segments closed, and stored in the bucket. */
export const SEAL_JOB = 'recording.seal';

interface FinalizePayload {
  session_id: string;
  org_id: string;
  project_id: string;
}

/**
 * The recordings module's jobs. Once a session has ended its recording is announced by a job
 * enqueued in the transaction of the end, so a crash in between delays `recording.ready` but
 * cannot lose it. The announcement enqueues the sealing in its own transaction the same way: the
 * recording's last event (`recording.ready` in its timeline) is written by then, and a sealing
 * that fails (object storage unreachable) is retried without announcing twice.
 */
export function recordingsJobs(deps: {
  bus: EventBus;
  jobs: JobQueue;
  writer: Pick<StreamWriter, 'seal'>;
  recordings: Pick<RecordingsService, 'finalize'>;
}): JobKind<FinalizePayload>[] {
  // Each step enqueued in the transaction of the event that calls for it.
  const then = (event: string, kind: string) =>
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
  return [
    {
      kind: FINALIZE_JOB,
      concurrency: 4,
      leaseMs: 60_000,
      retryDelayMs: (attempt) => (attempt < 5 ? 5000 * 2 ** attempt : undefined),
      async run(job) {
        const p = job.payload;
        await deps.recordings.finalize(p.session_id, p.org_id, p.project_id);
        return { ok: true };
      },
    },
    {
      kind: SEAL_JOB,
      concurrency: 2,
      leaseMs: 120_000,
      retryDelayMs: (attempt) => (attempt < 8 ? 5000 * 2 ** attempt : undefined),
      async run(job) {
        await deps.writer.seal(job.payload.session_id);
        return { ok: true };
      },
    },
  ];
}
