import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage, isStatus, vss } from '../../api';
import type { ExportJob } from './types';

/** How long after an answer a job still queued or rendering is asked again. */
const POLL_MS = 1000;

/** How far along a job is: answers arrive out of order, and one never takes a job back. */
const STAGE = { queued: 0, processing: 1, completed: 2, failed: 2 } as const;

const pending = (j: ExportJob) => STAGE[j.status] < 2;

/**
 * `fresh` in place of `old`, unless it is older news: a late "processing" never undoes
 * "completed". Between final states it is taken (a redaction withdraws a completed export).
 */
function newer(old: ExportJob, fresh: ExportJob): ExportJob {
  return STAGE[fresh.status] < STAGE[old.status] ? old : fresh;
}

/** The session's export jobs, newest first, each polled (one request at a time) until it is done. */
export function useExportJobs(sessionId: string) {
  const [jobs, setJobs] = useState<ExportJob[]>([]);
  const [error, setError] = useState<string | null>(null);

  const fetchJob = useCallback(async (id: string): Promise<ExportJob | null> => {
    try {
      return await vss.get('/v1/exports/{jobId}', { params: { path: { jobId: id } } });
    } catch (err) {
      // Gone (the session or the export was deleted): forgotten rather than shown as an error.
      if (isStatus(err, 404)) return null;
      throw err;
    }
  }, []);

  /** Takes what the API answered for one job (null: gone). */
  const merge = useCallback((id: string, fresh: ExportJob | null) => {
    setJobs((list) =>
      fresh ? list.map((x) => (x.job_id === id ? newer(x, fresh) : x)) : list.filter((x) => x.job_id !== id),
    );
  }, []);

  // A late answer for another session (the page was re-used for it) is dropped.
  const shown = useRef(sessionId);
  shown.current = sessionId;
  /** Reads every job again (on opening, and after a redaction withdrew some). */
  const refresh = useCallback(() => {
    vss
      .get('/v1/sessions/{sessionId}/exports', { params: { path: { sessionId } } })
      .then((all) => {
        if (shown.current !== sessionId) return;
        setJobs((old) => all.map((j) => newer(old.find((x) => x.job_id === j.job_id) ?? j, j)));
        setError(null);
      })
      .catch((err) => setError(errorMessage(err)));
  }, [sessionId]);
  useEffect(refresh, [refresh]);

  // Each pending job is asked again POLL_MS after its last answer, never while a request for it is
  // on its way. The interval reads the latest list through a ref, so it is not restarted per answer.
  const jobsRef = useRef(jobs);
  jobsRef.current = jobs;
  const asking = useRef(new Map<string, number>());
  const anyPending = jobs.some(pending);
  useEffect(() => {
    if (!anyPending) return;
    let live = true;
    const t = setInterval(() => {
      const now = Date.now();
      for (const j of jobsRef.current.filter(pending)) {
        const since = asking.current.get(j.job_id);
        if (since !== undefined && (since === 0 || now - since < POLL_MS)) continue;
        asking.current.set(j.job_id, 0);
        fetchJob(j.job_id)
          .then((fresh) => {
            if (!live) return;
            merge(j.job_id, fresh);
            setError(null);
          })
          .catch((err) => live && setError(errorMessage(err)))
          .finally(() => asking.current.set(j.job_id, Date.now()));
      }
    }, POLL_MS / 4);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [anyPending, fetchJob, merge]);

  /** Adds a job just queued. */
  const add = useCallback(
    async (jobId: string) => {
      const job = await fetchJob(jobId);
      if (job) setJobs((old) => [job, ...old.filter((x) => x.job_id !== jobId)]);
    },
    [fetchJob],
  );

  return { jobs, error, add, refresh };
}
