import { useCallback, useEffect, useRef, useState } from 'react';
import { apiPage, errorMessage, type RequestOptions } from '../api';

/** The state of something loaded from the API. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` on mount and whenever `deps` change; `reload()` loads again. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    loadRef
      .current(ctl.signal)
      .then((d) => {
        if (ctl.signal.aborted) return;
        setData(d);
        setError(null);
      })
      .catch((err) => {
        if (!ctl.signal.aborted) setError(errorMessage(err));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    return () => ctl.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/** A paged list: the first page on mount, `more()` appends the next one while there is one. */
export function usePagedList<T>(path: string, opts: RequestOptions = {}, deps: unknown[] = []) {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const query = JSON.stringify(opts.query ?? {});
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    apiPage<T>(path, { ...opts, signal: ctl.signal })
      .then((p) => {
        setItems(p.items);
        setNext(p.next);
        setError(null);
      })
      .catch((err) => !ctl.signal.aborted && setError(errorMessage(err)))
      .finally(() => !ctl.signal.aborted && setLoading(false));
    return () => ctl.abort();
  }, [path, query, tick, ...deps]);
  const more = useCallback(async () => {
    if (!next) return;
    setLoading(true);
    try {
      const p = await apiPage<T>(path, { ...opts, query: { ...opts.query, cursor: next } });
      setItems((old) => [...old, ...p.items]);
      setNext(p.next);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  }, [path, next, query]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { items, next, error, loading, more, reload, setItems };
}

/** Runs an action with a busy flag and an error message, for buttons and forms. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setError(null);
      try {
        return await fn(...args);
      } catch (err) {
        setError(errorMessage(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [fn],
  );
  return { run, busy, error, setError };
}
