import { useState, type FormEvent } from 'react';
import type { Project } from '../../types';
import { ErrorNote, Field } from '../../ui/kit';

/** A project's environment as the form edits it: '' for none. */
export type EnvChoice = '' | 'development' | 'staging' | 'production';
/** A project's environment as it is sent: null for none. */
export type Environment = Exclude<EnvChoice, ''> | null;

/** The form's choice for an environment as the API answers it (a string, or null). */
function choiceOf(env: string | null | undefined): EnvChoice {
  return env === 'development' || env === 'staging' || env === 'production' ? env : '';
}

/** The fields of a project, for creating one or editing it. */
export function ProjectForm(props: {
  label: string;
  initial?: Pick<Project, 'name' | 'environment'>;
  submitLabel: string;
  busy: boolean;
  error: string | null;
  onSubmit(name: string, environment: Environment): void;
  onCancel?(): void;
  /** focus the name as the form appears (it replaced the button that opened it) */
  autoFocus?: boolean;
}) {
  const [name, setName] = useState(props.initial?.name ?? '');
  const [env, setEnv] = useState<EnvChoice>(choiceOf(props.initial?.environment));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSubmit(name, env === '' ? null : env);
  };
  return (
    // The browser checks what it can (required, length) before the API is asked.
    <form className="inline-form" onSubmit={submit} aria-label={props.label}>
      <Field label="Project name" hint="1 to 200 characters">
        {(id, hint) => (
          <input
            id={id}
            value={name}
            required
            maxLength={200}
            aria-describedby={hint}
            // Only where the form replaced the button that opened it.
            autoFocus={props.autoFocus}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label="Environment">
        {(id) => (
          <select id={id} value={env} onChange={(e) => setEnv(e.target.value as EnvChoice)}>
            <option value="">None</option>
            <option value="development">Development</option>
            <option value="staging">Staging</option>
            <option value="production">Production</option>
          </select>
        )}
      </Field>
      <div className="row">
        <button type="submit" disabled={props.busy}>
          {props.busy ? 'Saving…' : props.submitLabel}
        </button>
        {props.onCancel ? (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      <ErrorNote error={props.error} />
    </form>
  );
}
