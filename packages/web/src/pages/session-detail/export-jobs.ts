import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, api } from '../../api';
import type { ExportJob } from './types';

/** How often a job still queued or rendering is asked again. */
const POLL_MS = 1000;

/**
 * The API has no list of a session's exports, so the job ids started from this browser are kept
 * in localStorage per session: the page shows them again when reopened.
 */
function storageKey(sessionId: string): string {
  return `vss.exports.${sessionId}`;
}

function storedIds(sessionId: string): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(storageKey(sessionId)) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function storeIds(sessionId: string, ids: string[]): void {
  localStorage.setItem(storageKey(sessionId), JSON.stringify(ids.slice(0, 20)));
}

const pending = (j: ExportJob) => j.status === 'queued' || j.status === 'processing';

/** The session's export jobs started here, newest first, polled until each completes or fails. */
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

  useEffect(() => {
    let stop = false;
    Promise.all(storedIds(sessionId).map(fetchJob))
      .then((found) => {
        if (stop) return;
        const kept = found.filter((j): j is ExportJob => j !== null);
        storeIds(
          sessionId,
          kept.map((j) => j.job_id),
        );
        setJobs(kept);
      })
      .catch((err: Error) => !stop && setError(err.message));
    return () => {
      stop = true;
    };
  }, [sessionId, fetchJob]);

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

  /** Adds a job just queued, and remembers it for this session. */
  const add = useCallback(
    async (jobId: string) => {
      storeIds(sessionId, [jobId, ...storedIds(sessionId).filter((id) => id !== jobId)]);
      const job = await fetchJob(jobId);
      if (job) setJobs((list) => [job, ...list.filter((x) => x.job_id !== jobId)]);
    },
    [sessionId, fetchJob],
  );

  /** Reads every job again (after a redaction withdrew some). */
  const refresh = useCallback(async () => {
    const found = await Promise.all(jobs.map((j) => fetchJob(j.job_id)));
    setJobs(found.filter((j): j is ExportJob => j !== null));
  }, [jobs, fetchJob]);

  return { jobs, error, add, refresh };
}
