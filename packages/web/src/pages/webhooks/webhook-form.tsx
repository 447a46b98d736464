import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Field } from '../../ui/kit';
import { EVENT_TYPES, type EventType } from './types';

/** What the form edits. */
export interface WebhookFields {
  url: string;
  events: EventType[];
  description: string;
}

/**
 * A webhook's address, event types and description, for creating and for editing. The browser
 * checks the address's form first; the API's answer, in plain words, says anything else.
 */
export function WebhookForm(props: {
  label: string;
  initial?: WebhookFields;
  submitLabel: string;
  busy: boolean;
  error: string | null;
  onSubmit(fields: WebhookFields): Promise<boolean | undefined>;
}) {
  const blank: WebhookFields = { url: '', events: ['session.ended', 'recording.ready'], description: '' };
  const [fields, setFields] = useState<WebhookFields>(props.initial ?? blank);
  const legendId = useId();
  const toggle = (type: EventType, on: boolean) =>
    setFields((f) => ({
      ...f,
      events: on ? [...f.events, type] : f.events.filter((e) => e !== type),
    }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // A created webhook starts a blank form for the next one; an edited one keeps its values.
    if ((await props.onSubmit(fields)) && !props.initial) setFields(blank);
  };
  return (
    <form className="card webhook-form" aria-label={props.label} onSubmit={submit}>
      <Field label="Endpoint URL" hint="https://… address that receives a signed POST for each event">
        {(id, hint) => (
          <input
            id={id}
            type="url"
            inputMode="url"
            required
            pattern="https?://.+"
            title="A web address starting with https:// (or http://)"
            autoComplete="off"
            placeholder="https://example.com/hooks/vss"
            aria-describedby={hint}
            value={fields.url}
            onChange={(e) => setFields((f) => ({ ...f, url: e.target.value }))}
          />
        )}
      </Field>
      <fieldset aria-labelledby={legendId}>
        <legend id={legendId}>Events</legend>
        <ul className="event-list">
          {EVENT_TYPES.map(([type, meaning]) => (
            <li key={type}>
              <label>
                <input
                  type="checkbox"
                  checked={fields.events.includes(type)}
                  onChange={(e) => toggle(type, e.target.checked)}
                />{' '}
                <code>{type}</code> <span className="muted">{meaning}</span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <Field label="Description" hint="Optional, up to 500 characters">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            maxLength={500}
            value={fields.description}
            onChange={(e) => setFields((f) => ({ ...f, description: e.target.value }))}
          />
        )}
      </Field>
      <ErrorNote error={props.error} />
      <button type="submit" disabled={props.busy}>
        {props.busy ? 'Saving…' : props.submitLabel}
      </button>
    </form>
  );
}
