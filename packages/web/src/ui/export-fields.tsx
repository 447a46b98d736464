import { Field } from './kit';

export type Layout = 'grid' | 'presenter' | 'speaker';
export type Orientation = 'landscape' | 'vertical';
export type Resolution = '720p' | '1080p';
/** `mp4`: pictures and sound; `m4a`: the sound alone */
export type Format = 'mp4' | 'm4a';

/** What a file made from a recording looks like: the choices an export and an auto-export share. */
export interface FileChoices {
  format: Format;
  layout: Layout;
  orientation: Orientation;
  resolution: Resolution;
}

/** What each layout does, said under its choice. */
export const LAYOUT_HINTS: Record<Layout, string> = {
  grid: 'Everyone alike, side by side',
  presenter: 'One person or a shared screen large, the others in a strip',
  speaker: 'The large picture follows whoever is speaking',
};

/** The picture's size for each resolution and orientation, as the choices show it. */
const SIZES = {
  '720p': { landscape: '1280×720', vertical: '720×1280' },
  '1080p': { landscape: '1920×1080', vertical: '1080×1920' },
} as const;

/**
 * The file's choices, in the same words wherever a file is asked for (the session's export panel,
 * a project's auto-export): MP4 or the sound alone, then the picture's layout, orientation and
 * resolution. For the sound alone the picture's choices do not apply: `sound` says whether they
 * are then hidden (a one-off export) or shown disabled, saying why (a preset kept for later).
 */
export function FileFields(props: {
  value: FileChoices;
  onChange: (change: Partial<FileChoices>) => void;
  sound: 'hide' | 'disable';
}) {
  const { value, onChange } = props;
  const audio = value.format === 'm4a';
  const off = audio && props.sound === 'disable';
  return (
    <>
      <Field label="Format">
        {(id) => (
          <select
            id={id}
            value={value.format}
            onChange={(e) => onChange({ format: e.target.value as Format })}
          >
            <option value="mp4">Video (MP4)</option>
            <option value="m4a">Audio only (M4A)</option>
          </select>
        )}
      </Field>
      {audio && props.sound === 'hide' ? null : (
        <>
          <Field label="Layout" hint={off ? 'Not used for audio only' : LAYOUT_HINTS[value.layout]}>
            {(id, hint) => (
              <select
                id={id}
                aria-describedby={hint}
                value={value.layout}
                disabled={off}
                onChange={(e) => onChange({ layout: e.target.value as Layout })}
              >
                <option value="grid">Grid</option>
                <option value="presenter">Presenter</option>
                <option value="speaker">Active speaker</option>
              </select>
            )}
          </Field>
          <Field label="Orientation">
            {(id) => (
              <select
                id={id}
                value={value.orientation}
                disabled={off}
                onChange={(e) => onChange({ orientation: e.target.value as Orientation })}
              >
                <option value="landscape">Landscape ({SIZES[value.resolution].landscape})</option>
                <option value="vertical">Vertical ({SIZES[value.resolution].vertical})</option>
              </select>
            )}
          </Field>
          <Field label="Resolution">
            {(id) => (
              <select
                id={id}
                value={value.resolution}
                disabled={off}
                onChange={(e) => onChange({ resolution: e.target.value as Resolution })}
              >
                <option value="720p">720p (HD)</option>
                <option value="1080p">1080p (Full HD)</option>
              </select>
            )}
          </Field>
        </>
      )}
    </>
  );
}
