import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, api } from '../../api';
import type { ExportJob } from './types';

/** How often a job still queued or rendering is asked again. */
const POLL_MS = 1000;

const pending = (j: ExportJob) => j.status === 'queued' || j.status === 'processing';

/** The session's export jobs, newest first, polled until each completes or fails. */
export function useExportJobs(sessionId: string) {
  const [jobs, setJobs] = useState<ExportJob[]>([]);
  const [error, setError] = useState<string | null>(null);

  const fetchJob = useCallback(async (id: string): Promise<ExportJob | null> => {
    try {
      return await api<ExportJob>('GET', `/v1/exports/${id}`);
    } catch (err) {
      // Gone (the session or the export was deleted): forgotten rather than shown as an error.
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }, []);

  const list = useCallback(() => api<ExportJob[]>('GET', `/v1/sessions/${sessionId}/exports`), [sessionId]);

  useEffect(() => {
    let stop = false;
    list()
      .then((all) => !stop && setJobs(all))
      .catch((err: Error) => !stop && setError(err.message));
    return () => {
      stop = true;
    };
  }, [list]);

  // The interval reads the latest list through a ref, so it is not restarted on every answer.
  const jobsRef = useRef(jobs);
  jobsRef.current = jobs;
  const anyPending = jobs.some(pending);
  useEffect(() => {
    if (!anyPending) return;
    const t = setInterval(() => {
      for (const j of jobsRef.current.filter(pending))
        fetchJob(j.job_id)
          .then((fresh) =>
            setJobs((list) =>
              fresh
                ? list.map((x) => (x.job_id === fresh.job_id ? fresh : x))
                : list.filter((x) => x.job_id !== j.job_id),
            ),
          )
          .catch((err: Error) => setError(err.message));
    }, POLL_MS);
    return () => clearInterval(t);
  }, [anyPending, fetchJob]);

  /** Adds a job just queued. */
  const add = useCallback(
    async (jobId: string) => {
      const job = await fetchJob(jobId);
      if (job) setJobs((old) => [job, ...old.filter((x) => x.job_id !== jobId)]);
    },
    [fetchJob],
  );

  /** Reads every job again (after a redaction withdrew some). */
  const refresh = useCallback(async () => setJobs(await list()), [list]);

  return { jobs, error, add, refresh };
}
