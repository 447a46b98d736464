import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { errorMessage } from '../../api';
import type { DeviceOption } from '@vss/sdk';
import type { Devices } from '@vss/sdk';
import { ErrorNote, Field, Progress } from '../../ui/kit';
import { useDeviceLists, useMicLevel, usePreviewCapture } from './device-hooks';

/** The longest display name the API takes. */
export const NAME_MAX = 64;

/** What the person chose before joining. */
export interface JoinChoice {
  /** the name to show, trimmed */
  name: string;
  cam: boolean;
  mic: boolean;
  devices: Devices;
}

/** A picker of one kind of device, with the switch that joins with it on or off. */
function DevicePicker(props: {
  kind: 'cam' | 'mic';
  options: DeviceOption[];
  value: string;
  on: boolean;
  disabled: boolean;
  onPick(id: string): void;
  onToggle(on: boolean): void;
  children?: ReactNode;
}) {
  const word = props.kind === 'cam' ? 'Camera' : 'Microphone';
  return (
    <div className="device-picker">
      <Field label={word}>
        {(id) => (
          <select
            id={id}
            value={props.value}
            disabled={props.disabled || !props.on || props.options.length === 0}
            onChange={(e) => props.onPick(e.target.value)}
          >
            {props.options.length === 0 ? <option value="">No {word.toLowerCase()} found yet</option> : null}
            {props.options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <label className="check">
        <input
          type="checkbox"
          checked={props.on}
          disabled={props.disabled}
          onChange={(e) => props.onToggle(e.target.checked)}
        />{' '}
        {word} on
      </label>
      {props.children}
    </div>
  );
}

/** The chosen camera's picture, live, or what stands in for it. */
function Preview({
  track,
  on,
  error,
}: {
  track: MediaStreamTrack | null;
  on: boolean;
  error: string | null;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const v = ref.current;
    if (!v) return;
    v.srcObject = track ? new MediaStream([track]) : null;
    if (track) void v.play().catch(() => undefined);
  }, [track]);
  return (
    <div className="preview tile own">
      {/* muted: a preview never plays sound */}
      <video ref={ref} muted playsInline aria-label="Camera preview" />
      {track ? null : (
        <div className="tile-off">{!on ? 'Camera off' : error ? 'No picture' : 'Starting the camera…'}</div>
      )}
    </div>
  );
}

/**
 * Before joining a live session, for members and guests alike: the name to show, the camera and
 * microphone (picked from what is plugged in, the camera previewed, the microphone's level shown)
 * or neither, and Join. Without `canPublish` the person watches and chats, and no device is opened.
 * `onJoin` runs from the click (sound may start there); it reports its steps, and its error is shown.
 */
export function PreJoin(props: {
  initialName: string;
  canPublish: boolean;
  onJoin(choice: JoinChoice, step: (words: string) => void): Promise<void>;
  /** under the Join button */
  children?: ReactNode;
}) {
  const [name, setName] = useState(props.initialName);
  const [cam, setCam] = useState(props.canPublish);
  const [mic, setMic] = useState(props.canPublish);
  const [camId, setCamId] = useState('');
  const [micId, setMicId] = useState('');
  const [step, setStep] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const joining = step !== null;
  // The preview lets go of the devices while joining: the room opens them itself.
  const camera = usePreviewCapture('cam', camId, cam && !joining);
  const microphone = usePreviewCapture('mic', micId, mic && !joining);
  const lists = useDeviceLists(`${camera.track?.id}/${microphone.track?.id}`);
  const level = useMicLevel(microphone.track);
  // What the pickers show: the choice, else the device the browser opened, else the first one.
  const shownCam = camId || camera.track?.getSettings().deviceId || lists.cam[0]?.id || '';
  const shownMic = micId || microphone.track?.getSettings().deviceId || lists.mic[0]?.id || '';

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (joining) return;
    const trimmed = name.trim();
    if (!trimmed) return setError('Enter the name the others will see.');
    setError(null);
    setStep('Joining…');
    const choice: JoinChoice = {
      name: trimmed,
      cam: props.canPublish && cam,
      mic: props.canPublish && mic,
      devices: { cam: shownCam || undefined, mic: shownMic || undefined },
    };
    props.onJoin(choice, setStep).then(
      () => setStep(null),
      (err: unknown) => {
        setError(errorMessage(err));
        setStep(null);
      },
    );
  };

  return (
    <form className="card pre-join" onSubmit={onSubmit} aria-label="Join live session">
      {props.canPublish ? (
        <Preview track={camera.track} on={cam} error={camera.error} />
      ) : (
        <p className="notice pre-join-watch">
          You can watch and chat in this session: this invitation does not include sharing a camera or
          microphone, so neither is used.
        </p>
      )}
      <div className="pre-join-fields">
        <Field
          label="Name in this session"
          hint={`Shown on your tile, in the chat and in the recording; up to ${NAME_MAX} characters.`}
        >
          {(id, hint) => (
            <input
              id={id}
              value={name}
              required
              maxLength={NAME_MAX}
              autoComplete="name"
              aria-describedby={hint}
              onChange={(e) => {
                setName(e.target.value);
                setError(null);
              }}
            />
          )}
        </Field>
        {props.canPublish ? (
          <>
            <DevicePicker
              kind="cam"
              options={lists.cam}
              value={shownCam}
              on={cam}
              disabled={joining}
              onPick={setCamId}
              onToggle={setCam}
            />
            <ErrorNote error={cam ? camera.error : null} />
            <DevicePicker
              kind="mic"
              options={lists.mic}
              value={shownMic}
              on={mic}
              disabled={joining}
              onPick={setMicId}
              onToggle={setMic}
            >
              <meter
                className="mic-level"
                aria-label="Microphone level"
                min={0}
                max={1}
                low={0.15}
                high={0.85}
                optimum={0.5}
                value={mic ? level : 0}
                aria-describedby="mic-level-hint"
              />
              <small id="mic-level-hint" className="muted">
                {mic ? 'The bar moves when the microphone hears you.' : 'The microphone stays off.'}
              </small>
            </DevicePicker>
            <ErrorNote error={mic ? microphone.error : null} />
          </>
        ) : null}
        <button type="submit" disabled={joining}>
          {joining ? 'Joining…' : 'Join'}
        </button>
        {step ? <Progress label={step} /> : null}
        <ErrorNote error={error} />
        {props.children}
      </div>
    </form>
  );
}
