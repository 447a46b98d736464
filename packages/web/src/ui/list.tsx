import type { ReactNode } from 'react';
import { ErrorNote, LoadMore, Loading } from './kit';

/** What a list shows of the state of a paged list (`usePagedList` keeps it). */
export interface ListState<T> {
  items: T[];
  next: string | null;
  error: string | null;
  loading: boolean;
  more(): unknown;
}

/**
 * A paged list in each of its states, the same on every page: the error above it; while the first
 * page loads, `loading` (a label; null says nothing, for a section that stays quiet); with nothing
 * in it and no error, `empty`; else the items as `children` draws them. "Load more" follows while
 * there is a next page.
 */
export function PagedView<T>(props: {
  list: ListState<T>;
  /** the error shown above the list: by default the list's own (pass it with an action's) */
  error?: string | null;
  /** the words while the first page loads ('Loading…' when not given); null: nothing */
  loading?: string | null;
  /** what an empty list shows; nothing when not given */
  empty?: ReactNode;
  children(items: T[]): ReactNode;
}) {
  const { list } = props;
  const error = props.error === undefined ? list.error : props.error;
  let body: ReactNode = null;
  if (list.items.length > 0) body = props.children(list.items);
  else if (list.loading) body = props.loading === null ? null : <Loading label={props.loading} />;
  else if (!list.error) body = props.empty ?? null;
  return (
    <>
      <ErrorNote error={error} />
      {body}
      <LoadMore next={list.next} loading={list.loading} onMore={() => void list.more()} />
    </>
  );
}

/**
 * A table of a list: its caption (read by screen readers, hidden on screen), its column headings
 * (a null one is left out) and its rows.
 */
export function Table(props: {
  caption: string;
  columns: ReactNode[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={props.className}>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns
              .filter((c) => c !== null && c !== undefined && c !== false)
              .map((c, i) => (
                <th key={i} scope="col">
                  {c}
                </th>
              ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
