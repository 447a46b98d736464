import type { CallInit, DataOf, ItemOf as ElementOf, Page, PathOf } from '@vss/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage, vss } from '../api';

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

/** A list route of the API (a GET answering an array, paged by `cursor`). */
export type ListPath = PathOf<'get'>;
/** The items a list route answers. */
export type ItemOf<P extends ListPath> = ElementOf<DataOf<P, 'get'>>;

/** A paged list as `usePagedList` keeps it. */
export interface PagedList<T> {
  items: T[];
  /** the next page's cursor, null on the last page */
  next: string | null;
  error: string | null;
  loading: boolean;
  more(): Promise<void>;
  reload(): void;
  refresh(): Promise<void>;
  setItems(change: (items: T[]) => T[]): void;
}

/** A list call's options, as far as paging goes (`usePagedList` checks them against the route). */
type ListInit = { params?: { query?: object } };

/** The first page, or the one after `cursor`, of a list route (the hook gives the types). */
function readPage(path: string, init: ListInit, cursor: string | null, signal?: AbortSignal) {
  const params = init.params;
  const query = cursor ? { ...params?.query, cursor } : params?.query;
  return (vss.page as (p: string, i: object) => Promise<Page<{ id: string }>>)(path, {
    ...init,
    params: { ...params, query },
    signal,
  });
}

/**
 * A paged list of `path` (its path parameters and query in `init`): the first page on mount (and
 * when `path`, `init` or `deps` change), `more()` appends the next one while there is one.
 * `reload()` reads the first page again and starts over; `refresh()` (and `refreshMs`, every so
 * many milliseconds) re-reads it in the background and merges it into what is loaded.
 */
export function usePagedList<P extends ListPath>(
  path: P,
  init: NonNullable<CallInit<P, 'get'>>,
  opts: { refreshMs?: number; deps?: unknown[] } = {},
): PagedList<ItemOf<P>> {
  type T = { id: string };
  const [state, setState] = useState<{ items: T[]; next: string | null }>({ items: [], next: null });
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const query = JSON.stringify(init);
  const initRef = useRef<ListInit>(init);
  initRef.current = init;
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
    readPage(path, initRef.current, null, ctl.signal)
      .then((p) => {
        if (gen !== generation.current) return;
        pages.current = 1;
        setState({ items: p.items, next: p.nextCursor });
        setError(null);
      })
      .catch((err) => gen === generation.current && !ctl.signal.aborted && setError(errorMessage(err)))
      .finally(() => gen === generation.current && setLoading(false));
    return () => ctl.abort();
  }, [path, query, tick, ...(opts.deps ?? [])]);

  const more = useCallback(async () => {
    const cursor = nextRef.current;
    if (!cursor || moreCtl.current) return;
    const gen = generation.current;
    const ctl = new AbortController();
    moreCtl.current = ctl;
    setLoading(true);
    try {
      const p = await readPage(path, initRef.current, cursor, ctl.signal);
      if (gen !== generation.current) return;
      pages.current += 1;
      setState((s) => ({ items: [...s.items, ...without(p.items, s.items)], next: p.nextCursor }));
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
      const p = await readPage(path, initRef.current, null);
      if (gen !== generation.current || moreCtl.current) return;
      setState((s) =>
        // One page loaded: the fresh one replaces it (what left it went away or moved on to the next
        // page). More loaded: the fresh page is updated in place and the older ones are kept as read,
        // with the cursor after them, so that what is being read does not vanish.
        pages.current === 1
          ? { items: p.items, next: p.nextCursor }
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
  // The items are the route's (`ItemOf<P>`); `T` only names the `id` the merging needs.
  return {
    items: state.items,
    next: state.next,
    error,
    loading,
    more,
    reload,
    refresh,
    setItems,
  } as unknown as PagedList<ItemOf<P>>;
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
