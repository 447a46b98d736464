import { useEffect, useRef, useState } from 'react';
import { vss } from '../api';
import { useAuth } from '../auth';
import type { Project } from '../types';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { Badge, Empty, PageHeader } from '../ui/kit';
import { PagedView } from '../ui/list';
import { AutoExportSettings } from './projects/auto-export';
import { EmbedSettings } from './projects/embed-settings';
import { ProjectForm, type Environment } from './projects/project-form';
import './projects/projects.css';

/** One project's row: its name and environment, or the form that edits them. */
function ProjectRow({ p, manage, onSaved }: { p: Project; manage: boolean; onSaved(p: Project): void }) {
  const { project } = useAuth();
  const [editing, setEditing] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [embedding, setEmbedding] = useState(false);
  // The Edit button is replaced by the form while editing: focus goes back to it after.
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const save = useAction(async (name: string, environment: Environment) => {
    const updated = await vss.patch('/v1/projects/{projectId}', {
      params: { path: { projectId: p.id } },
      body: { name, environment },
    });
    setEditing(false);
    onSaved(updated);
  });
  return (
    <li className="card">
      {editing ? (
        <ProjectForm
          label={`Edit ${p.name}`}
          initial={p}
          submitLabel="Save"
          autoFocus
          busy={save.busy}
          error={save.error}
          onSubmit={(name, env) => void save.run(name, env)}
          onCancel={() => {
            save.setError(null);
            setEditing(false);
          }}
        />
      ) : (
        <div className="row">
          <strong>{p.name}</strong>
          {p.environment ? <Badge tone="idle">{p.environment}</Badge> : null}
          {p.id === project?.id ? <Badge tone="ok">current</Badge> : null}
          <span className="muted">created {formatTime(p.created_at)}</span>
          <code className="muted">{p.id}</code>
          {manage ? (
            <button
              ref={editButton}
              type="button"
              className="secondary"
              aria-label={`Edit ${p.name}`}
              onClick={() => setEditing(true)}
            >
              Edit
            </button>
          ) : null}
          {manage ? (
            <button
              type="button"
              className="secondary"
              aria-expanded={exporting}
              aria-label={`Auto-export settings of ${p.name}`}
              onClick={() => setExporting((x) => !x)}
            >
              Auto-export
            </button>
          ) : null}
          {manage ? (
            <button
              type="button"
              className="secondary"
              aria-expanded={embedding}
              aria-label={`Embedding settings of ${p.name}`}
              onClick={() => setEmbedding((x) => !x)}
            >
              Embedding
            </button>
          ) : null}
        </div>
      )}
      {manage && exporting ? <AutoExportSettings projectId={p.id} /> : null}
      {manage && embedding ? <EmbedSettings p={p} onSaved={onSaved} /> : null}
    </li>
  );
}

/** The organisation's projects: create one, rename one or change its environment. */
export function ProjectsPage() {
  const { me, refresh } = useAuth();
  const list = usePagedList('/v1/projects', { params: { query: { limit: 100 } } });
  const [formKey, setFormKey] = useState(0);
  const [done, setDone] = useState<string | null>(null);
  const manage = me?.role === 'owner' || me?.role === 'admin';
  const create = useAction(async (name: string, environment: Environment) => {
    const p = await vss.post('/v1/projects', { body: { name, environment } });
    list.setItems((items) => [...items, p]);
    setFormKey((k) => k + 1);
    setDone(`Project ${p.name} created; choose it in the project switcher at the top.`);
    // The switcher lists the projects the auth state holds.
    await refresh();
  });
  return (
    <>
      <PageHeader title="Projects" sub="Each project has its own sessions, keys and webhooks." />
      {manage ? (
        <section className="card" aria-labelledby="new-project-title">
          <h2 id="new-project-title">New project</h2>
          <ProjectForm
            key={formKey}
            label="New project"
            submitLabel="Create project"
            busy={create.busy}
            error={create.error}
            onSubmit={(name, env) => void create.run(name, env)}
          />
        </section>
      ) : (
        <p className="muted">Only owners and admins create and edit projects.</p>
      )}
      {done ? <p role="status">{done}</p> : null}
      <PagedView list={list} loading="Loading projects…" empty={<Empty title="No projects" />}>
        {(items) => (
          <ul className="plain-list" aria-label="Projects">
            {items.map((p) => (
              <ProjectRow
                key={p.id}
                p={p}
                manage={manage}
                onSaved={(u) => {
                  list.setItems((items) => items.map((x) => (x.id === u.id ? u : x)));
                  void refresh();
                }}
              />
            ))}
          </ul>
        )}
      </PagedView>
    </>
  );
}
