import type { EventBus } from '../../bus/events.js';
import type { JobKind, JobQueue } from '../../jobs/queue.js';
import type { RecordingsService } from './service.js';

/** The job that announces `recording.ready` once a session has ended. */
export const FINALIZE_JOB = 'recording.finalize';

interface FinalizePayload {
  session_id: string;
  org_id: string;
  project_id: string;
}

/**
 * The recordings module's jobs. Once a session has ended its recording is announced by a job
 * enqueued in the transaction of the end, so a crash in between delays `recording.ready` but
 * cannot lose it.
 */
export function recordingsJobs(deps: {
  bus: EventBus;
  jobs: JobQueue;
  recordings: Pick<RecordingsService, 'finalize'>;
}): JobKind<FinalizePayload>[] {
  deps.bus.onTransactional('session.ended', async (trx, e) => {
    if (!e.sessionId) return;
    await deps.jobs.enqueue(trx, FINALIZE_JOB, {
      session_id: e.sessionId,
      org_id: e.orgId,
      project_id: e.projectId,
    } satisfies FinalizePayload);
  });
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
  ];
}
