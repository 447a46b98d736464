import { useAuth } from '../auth';
import { Field } from './kit';

/** A labelled choice among the organisation's projects (the current one first by default). */
export function ProjectSelect({ value, onChange }: { value: string; onChange(id: string): void }) {
  const { projects } = useAuth();
  return (
    <Field label="Project">
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The name of a project of the organisation, or its id when it is not listed. */
export function useProjectName(): (id: string) => string {
  const { projects } = useAuth();
  return (id) => projects.find((p) => p.id === id)?.name ?? id;
}
