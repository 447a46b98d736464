import { Field } from '../../ui/kit';

/** How long a link (replay or join) stays valid, in minutes: 1 to 43200, required. */
export function ExpiryMinutes({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
}) {
  return (
    <Field label={label} hint="1 to 43200 (30 days); 1440 is one day">
      {(id, hint) => (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={1}
          max={43200}
          step={1}
          required
          aria-describedby={hint}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
