import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useAuth } from '../../auth';
import { formatTime } from '../../ui/format';
import { useAction, usePagedList } from '../../ui/hooks';
import { ConfirmDialog, Empty, ErrorNote, Field, SecretOnce } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';
import { ProjectSelect, useProjectName } from '../../ui/project-select';
import type { CreatedKey, KeyRecord } from './types';

/** What differs between API keys and restricted keys. */
export interface KeyKind {
  /** "API key" or "restricted key", as written inside a sentence */
  noun: string;
  /** the list route */
  list: '/v1/api-keys' | '/v1/restricted-keys';
  /** the create request for a project and a label */
  create(projectId: string, label: string | null): Promise<CreatedKey>;
  /** gives a key another label (null: none) */
  relabel(keyId: string, label: string | null): Promise<unknown>;
  remove(keyId: string): Promise<unknown>;
}

/** One kind of key: a form to create one (its secret shown once), the list, relabel and delete. */
export function KeySection({ kind, title, children }: { kind: KeyKind; title: string; children: ReactNode }) {
  const { project } = useAuth();
  const projectName = useProjectName();
  const list = usePagedList(kind.list, { params: { query: { limit: 100 } } });
  const [projectId, setProjectId] = useState(project?.id ?? '');
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [deleting, setDeleting] = useState<KeyRecord | null>(null);
  const create = useAction(async () => {
    const key = await kind.create(projectId || (project?.id ?? ''), label.trim() || null);
    setCreated(key);
    setLabel('');
    list.reload();
  });
  const remove = useAction(async (key: KeyRecord) => {
    await kind.remove(key.id);
    // Gone from the list with the dialog, in one render: focus then goes to the page's heading.
    list.setItems((items) => items.filter((x) => x.id !== key.id));
    setDeleting(null);
    void list.refresh();
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  const slug = kind.noun.toLowerCase().replace(/\s+/g, '-');
  const capitalised = kind.noun[0]!.toUpperCase() + kind.noun.slice(1);
  return (
    <section aria-labelledby={`${slug}-title`}>
      <h2 id={`${slug}-title`}>{title}</h2>
      {children}
      {created ? (
        <SecretOnce
          label={`Secret of the new ${kind.noun}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <form className="card inline-form" aria-label={`New ${kind.noun}`} onSubmit={onSubmit}>
        <ProjectSelect value={projectId || (project?.id ?? '')} onChange={setProjectId} />
        <Field label={`${capitalised} label`} hint="Optional: to recognise it by, up to 200 characters">
          {(id, hint) => (
            <input
              id={id}
              maxLength={200}
              aria-describedby={hint}
              value={label}
              onChange={(e) => setLabel(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : `Create ${kind.noun}`}
        </button>
        <ErrorNote error={create.error} />
      </form>
      <PagedView
        list={list}
        empty={<Empty title={`No ${kind.noun}s yet`}>Create one above; its secret is shown once.</Empty>}
      >
        {(items) => (
          <Table
            caption={`${title}, oldest first`}
            columns={['Label', 'Key', 'Project', 'Created', 'Last used', 'Actions']}
          >
            {items.map((k) => (
              <KeyRow
                key={k.id}
                record={k}
                kind={kind}
                project={projectName(k.project_id)}
                onChanged={list.reload}
                onDelete={() => {
                  remove.setError(null);
                  setDeleting(k);
                }}
              />
            ))}
          </Table>
        )}
      </PagedView>
      {deleting ? (
        <ConfirmDialog
          title={`Delete this ${kind.noun}?`}
          confirmLabel="Delete key"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            <code>{deleting.prefix}…</code> {deleting.label ? `(${deleting.label}) ` : ''}is refused from its
            next request on. Whatever uses it stops working.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** One key: its label (editable in place), prefix, project, times, and a delete button. */
function KeyRow(props: {
  record: KeyRecord;
  kind: KeyKind;
  project: string;
  onChanged(): void;
  onDelete(): void;
}) {
  const k = props.record;
  const name = k.label ?? k.prefix;
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(k.label ?? '');
  const relabel = useAction(async () => {
    await props.kind.relabel(k.id, label.trim() || null);
    stopEditing();
    props.onChanged();
  });
  // The Rename button is replaced by the form while editing: focus goes back to it after.
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && !editing) renameButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const stopEditing = () => {
    relabel.setError(null);
    setEditing(false);
  };
  return (
    <tr>
      <td>
        {editing ? (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              void relabel.run();
            }}
          >
            <input
              aria-label={`New label for ${name}`}
              // Opened by the Rename button just pressed, which the form replaced.
              autoFocus
              value={label}
              onChange={(e) => setLabel(e.target.value)}
            />
            <button type="submit" disabled={relabel.busy}>
              Save
            </button>
            <button type="button" className="secondary" onClick={stopEditing}>
              Cancel
            </button>
            <ErrorNote error={relabel.error} />
          </form>
        ) : (
          (k.label ?? <span className="muted">no label</span>)
        )}
      </td>
      <td>
        <code>{k.prefix}…</code>
      </td>
      <td>{props.project}</td>
      <td>{formatTime(k.created_at)}</td>
      <td>{k.last_used_at ? formatTime(k.last_used_at) : 'never'}</td>
      <td>
        <div className="row">
          {editing ? null : (
            <button
              ref={renameButton}
              type="button"
              className="secondary"
              aria-label={`Rename ${name}`}
              onClick={() => {
                setLabel(k.label ?? '');
                setEditing(true);
              }}
            >
              Rename
            </button>
          )}
          <button type="button" className="danger" aria-label={`Delete ${name}`} onClick={props.onDelete}>
            Delete
          </button>
        </div>
      </td>
    </tr>
  );
}
