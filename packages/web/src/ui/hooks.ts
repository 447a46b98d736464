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

/** What `usePagedList` reads: the list's query, and how often it is read again in the background. */
export interface PagedOptions {
  query?: RequestOptions['query'];
  /** re-read the loaded items every so many milliseconds, without disturbing the page */
  refreshMs?: number;
}

/**
 * A paged list: the first page on mount (and when `path`, the query or `deps` change), `more()`
 * appends the next one while there is one. `reload()` reads the first page again and starts over;
 * `refresh()` (and `refreshMs`) re-reads it in the background and merges it into what is loaded.
 */
export function usePagedList<T extends { id: string }>(
  path: string,
  opts: PagedOptions = {},
  deps: unknown[] = [],
) {
  const [state, setState] = useState<{ items: T[]; next: string | null }>({ items: [], next: null });
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const query = JSON.stringify(opts.query ?? {});
  const queryRef = useRef(opts.query);
  queryRef.current = opts.query;
  // Every start-over bumps the generation: answers of an older one (a `more()` or a refresh still
  // on its way) are dropped, so that they never land on the fresh first page.
  const generation = useRef(0);
  const moreCtl = useRef<AbortController | null>(null);
  const refreshing = useRef(false);
  const pages = useRef(1);
  const nextRef = useRef<string | null>(null);
  nextRef.current = state.next;

  useEffect(() => {
    const gen = ++generation.current;
    moreCtl.current?.abort();
    moreCtl.current = null;
    const ctl = new AbortController();
    setLoading(true);
    apiPage<T>(path, { query: queryRef.current, signal: ctl.signal })
      .then((p) => {
        if (gen !== generation.current) return;
        pages.current = 1;
        setState({ items: p.items, next: p.next });
        setError(null);
      })
      .catch((err) => gen === generation.current && !ctl.signal.aborted && setError(errorMessage(err)))
      .finally(() => gen === generation.current && setLoading(false));
    return () => ctl.abort();
  }, [path, query, tick, ...deps]);

  const more = useCallback(async () => {
    const cursor = nextRef.current;
    if (!cursor || moreCtl.current) return;
    const gen = generation.current;
    const ctl = new AbortController();
    moreCtl.current = ctl;
    setLoading(true);
    try {
      const p = await apiPage<T>(path, {
        query: { ...queryRef.current, cursor },
        signal: ctl.signal,
      });
      if (gen !== generation.current) return;
      pages.current += 1;
      setState((s) => ({ items: [...s.items, ...without(p.items, s.items)], next: p.next }));
    } catch (err) {
      if (gen === generation.current && !ctl.signal.aborted) setError(errorMessage(err));
    } finally {
      if (moreCtl.current === ctl) {
        moreCtl.current = null;
        setLoading(false);
      }
    }
  }, [path]);

  const refresh = useCallback(async () => {
    // Skipped while a page is on its way: its answer decides what comes next.
    if (refreshing.current || moreCtl.current) return;
    refreshing.current = true;
    const gen = generation.current;
    try {
      const p = await apiPage<T>(path, { query: queryRef.current });
      if (gen !== generation.current || moreCtl.current) return;
      setState((s) =>
        // One page loaded: the fresh one replaces it (what left it went away or moved on to the next
        // page). More loaded: the fresh page is updated in place and the older ones are kept as read,
        // with the cursor after them, so that what is being read does not vanish.
        pages.current === 1
          ? { items: p.items, next: p.next }
          : { items: [...p.items, ...without(s.items, p.items)], next: s.next },
      );
      setError(null);
    } catch (err) {
      if (gen === generation.current) setError(errorMessage(err));
    } finally {
      refreshing.current = false;
    }
  }, [path, query]);

  useEffect(() => {
    if (!opts.refreshMs) return;
    const t = setInterval(() => void refresh(), opts.refreshMs);
    return () => clearInterval(t);
  }, [refresh, opts.refreshMs]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setItems = useCallback((change: (items: T[]) => T[]) => {
    setState((s) => ({ ...s, items: change(s.items) }));
  }, []);
  return { items: state.items, next: state.next, error, loading, more, reload, refresh, setItems };
}

/** The items of `list` whose id is not in `seen`. */
function without<T extends { id: string }>(list: T[], seen: T[]): T[] {
  const ids = new Set(seen.map((x) => x.id));
  return list.filter((x) => !ids.has(x.id));
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

/** The element to focus when nothing better is left: the page's heading, else its main region. */
export function pageHeading(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('main');
}

/**
 * Gives focus back when the calling component goes away (a dialog, a secret shown once): to the
 * element that had it when the component appeared, or to the page's heading when that element is
 * gone too (the delete button of a deleted row). Call it before any effect that moves focus.
 */
export function useReturnFocus(): void {
  useEffect(() => {
    const before = document.activeElement;
    return () => {
      const back =
        before instanceof HTMLElement && before !== document.body && before.isConnected
          ? before
          : pageHeading();
      back?.focus();
    };
  }, []);
}
