import { useId, useState, type FormEvent } from 'react';
import { vss } from '../../api';
import type { Project } from '../../types';
import { useAction } from '../../ui/hooks';
import { ErrorNote } from '../../ui/kit';

/**
 * The API names a wrong entry `body.embed_origins[i]: why`: say it as the line of the box it came
 * from (`lines[i]`, blank lines left out of what was sent).
 */
function sayLine(message: string, lines: number[]): string {
  const m = /^body\.embed_origins\[(\d+)\]: (.*)$/.exec(message);
  const line = m ? lines[Number(m[1])] : undefined;
  return m && line !== undefined ? `Line ${line}: ${m[2]}` : message;
}

/**
 * The sites that may frame a project's prebuilt room (`/embed/{projectId}`): one origin per line,
 * saved as the project's `embed_origins`; the API says in words which line is wrong.
 */
export function EmbedSettings({ p, onSaved }: { p: Project; onSaved(p: Project): void }) {
  const id = useId();
  const [text, setText] = useState((p.embed_origins ?? []).join('\n'));
  const [saved, setSaved] = useState(false);
  /** the box's line number (1-based) of each origin sent */
  const [lines, setLines] = useState<number[]>([]);
  const save = useAction(async (origins: string[]) => {
    const updated = await vss.patch('/v1/projects/{projectId}', {
      params: { path: { projectId: p.id } },
      body: { embed_origins: origins },
    });
    setSaved(true);
    onSaved(updated);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const sent = text
      .split('\n')
      .map((l, i) => ({ origin: l.trim(), line: i + 1 }))
      .filter((x) => x.origin);
    setLines(sent.map((x) => x.line));
    void save.run(sent.map((x) => x.origin));
  };
  return (
    <form className="embed-form" onSubmit={submit} aria-label={`Embedding of ${p.name}`}>
      <label htmlFor={id}>Sites that may show this project's room in a frame</label>
      <textarea
        id={id}
        rows={3}
        value={text}
        placeholder="https://app.example.com"
        aria-describedby={`${id}-hint`}
        onChange={(e) => setText(e.target.value)}
      />
      <p id={`${id}-hint`} className="muted">
        One origin per line (https://, or http:// for localhost), at most 20. The room is at{' '}
        <code>
          {location.origin}/embed/{p.id}#token=…
        </code>
        ; no site may frame it while this is empty.
      </p>
      <div className="row">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save sites'}
        </button>
        {saved && !save.error ? <span role="status">Saved.</span> : null}
      </div>
      <ErrorNote error={save.error === null ? null : sayLine(save.error, lines)} />
    </form>
  );
}
