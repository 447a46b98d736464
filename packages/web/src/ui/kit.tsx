import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/** A page's heading row: the title, an optional line under it, actions on the right. */
export function PageHeader({
  title,
  sub,
  children,
}: {
  title: string;
  sub?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
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

/** A progress bar for a long action; `value` 0..1, or undefined while unknown. */
export function Progress({ label, value }: { label: string; value?: number }) {
  return (
    <div className="progress" role="status" aria-live="polite">
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

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone(true);
          setTimeout(() => setDone(false), 2000);
        } catch {
          // clipboard refused (insecure context, permission): the text is selectable on the page
        }
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/** A secret shown once, right after it was created, with a copy button and a warning. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone(): void }) {
  return (
    <div className="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}.</strong> Copy it now: it is shown this once and cannot be read again.
      </p>
      <div className="row">
        <code className="secret-value" data-testid="secret">
          {secret}
        </code>
        <CopyButton text={secret} />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * Asks before something that cannot be undone (a native modal dialog: focus is trapped in it
 * and Escape cancels). `onConfirm` runs on the confirm button.
 */
export function ConfirmDialog(props: {
  open: boolean;
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
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} onCancel={props.onCancel} aria-labelledby={titleId}>
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

/** "Load more" under a paged list, while there is a next page. */
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
    <button type="button" className="secondary" disabled={loading} onClick={onMore}>
      {loading ? 'Loading…' : 'Load more'}
    </button>
  );
}
