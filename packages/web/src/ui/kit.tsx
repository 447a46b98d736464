import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useReturnFocus } from './hooks';

/**
 * A page's heading row: the title, an optional line under it, actions on the right. The title is
 * also the document's (tabs, history, screen readers' page announcements).
 */
export function PageHeader({
  title,
  sub,
  children,
}: {
  title: string;
  sub?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · vss`;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        {/* Focusable from script only: focus lands here after navigating and when a dialog's opener is gone. */}
        <h1 tabIndex={-1}>{title}</h1>
        {sub ? <p className="muted">{sub}</p> : null}
      </div>
      {children ? <div className="actions">{children}</div> : null}
    </header>
  );
}

/** An error from the API, read out to screen readers as it appears. */
export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

/** A list with nothing in it yet: what it will hold and how to get the first one. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children ? <div>{children}</div> : null}
    </div>
  );
}

/** Something loading; announced politely. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

/**
 * A progress bar for a long action; `value` 0..1, or undefined while unknown. `live` (the default)
 * reads the label out as it changes; turn it off where the label changes with every step and the
 * state is announced elsewhere.
 */
export function Progress({ label, value, live = true }: { label: string; value?: number; live?: boolean }) {
  return (
    <div className="progress" role={live ? 'status' : undefined} aria-live={live ? 'polite' : undefined}>
      <span>{label}</span>
      <progress max={1} value={value} aria-label={label} />
    </div>
  );
}

/** A labelled form field; the label is tied to its control, the hint and error are described by it. */
export function Field(props: {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint ? (
        <small id={hintId} className="muted">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small className="error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

/** Copies `text` to the clipboard and says so, on the button and to screen readers. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [note, setNote] = useState<'' | 'copied' | 'failed'>('');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={async () => {
          window.clearTimeout(timer.current);
          try {
            await navigator.clipboard.writeText(text);
            setNote('copied');
            timer.current = window.setTimeout(() => setNote(''), 2000);
          } catch {
            // Refused (insecure context, permission): said, and the text stays selectable on the page.
            setNote('failed');
          }
        }}
      >
        {note === 'copied' ? 'Copied' : label}
      </button>
      {/* Always rendered: a live region announces changes only once it is in the page. */}
      <span className={note === 'failed' ? 'error' : 'visually-hidden'} aria-live="polite">
        {note === 'copied'
          ? 'Copied to the clipboard.'
          : note === 'failed'
            ? 'Could not copy: select the text and copy it.'
            : ''}
      </span>
    </>
  );
}

/**
 * A secret shown once, right after it was created, with a copy button and a warning. Focus moves
 * to it as it appears (so that it is read out and the copy button is next), and back as it goes.
 * `lead` says what it is for (default: its label); `copyLabel` names the copy button.
 */
export function SecretOnce({
  label,
  secret,
  onDone,
  lead,
  copyLabel,
}: {
  label: string;
  secret: string;
  onDone(): void;
  lead?: string;
  copyLabel?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useReturnFocus();
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="secret" role="region" aria-label={label} tabIndex={-1} ref={ref}>
      <p>
        <strong>{lead ?? `${label}.`}</strong> Copy it now: it is shown this once and cannot be read again.
      </p>
      <div className="row">
        <code className="secret-value" data-testid="secret">
          {secret}
        </code>
        <CopyButton text={secret} label={copyLabel} />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * Asks before something that cannot be undone (a native modal dialog: focus is trapped in it and
 * Escape cancels). Render it only while asking: it opens as it mounts and, as it unmounts, gives
 * focus back to what had it (removing an open dialog does not). `onConfirm` runs on the confirm
 * button.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useReturnFocus();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        // Escape: the parent unmounts the dialog, rather than the browser closing it under it.
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      <div>{props.children}</div>
      <ErrorNote error={props.error} />
      <div className="row end">
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A small coloured label for a state. */
export function Badge({
  tone,
  children,
}: {
  tone: 'live' | 'ok' | 'warn' | 'bad' | 'idle';
  children: ReactNode;
}) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/**
 * "Load more" under a paged list, while there is a next page. While loading it says so but stays
 * enabled (aria-disabled, clicks ignored): disabling a focused button would drop keyboard focus.
 */
export function LoadMore({
  next,
  loading,
  onMore,
}: {
  next: string | null;
  loading: boolean;
  onMore(): void;
}) {
  if (!next) return null;
  return (
    <button type="button" className="secondary" aria-disabled={loading} onClick={() => loading || onMore()}>
      {loading ? 'Loading…' : 'Load more'}
    </button>
  );
}
