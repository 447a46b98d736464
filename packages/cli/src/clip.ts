import { InvalidArgumentError } from 'commander';

/**
 * A time of `--from` / `--to`: either a moment on the session's clock (`at`, ms since 1970) or an
 * offset from the recording's start (`offset`, ms).
 */
export type ClipTime = { at: number } | { offset: number };

/** A whole number of this many digits or more is ms since 1970 (1e11 ms is 1973; as seconds, 3,000 years). */
const EPOCH_DIGITS = 12;

/**
 * Parses `--from` / `--to`: ms since 1970 (a whole number of 12 digits or more, as the manifest and
 * the timeline give them), or an offset from the recording's start: `1:30`, `1:02:03`, `90`, `90s`,
 * `2.5` (seconds), `1500ms`.
 */
export function clipTime(value: string): ClipTime {
  const v = value.trim();
  if (new RegExp(`^\\d{${EPOCH_DIGITS},}$`).test(v)) {
    const at = Number(v);
    if (Number.isSafeInteger(at)) return { at };
  }
  let ms = NaN;
  const clock = /^(?:(\d+):)?(\d+):(\d{1,2}(?:\.\d+)?)$/.exec(v);
  if (clock) {
    const [h, m, s] = [Number(clock[1] ?? 0), Number(clock[2]), Number(clock[3])];
    // 1:75 or 1:90:00 is a typo, not a time.
    if (s < 60 && (clock[1] === undefined || m < 60)) ms = ((h * 60 + m) * 60 + s) * 1000;
  } else {
    const plain = /^(\d+(?:\.\d+)?)(s|ms)?$/.exec(v);
    if (plain) ms = Number(plain[1]) * (plain[2] === 'ms' ? 1 : 1000);
  }
  if (!Number.isFinite(ms))
    throw new InvalidArgumentError(
      `expected a time from the recording's start (1:30, 1:02:03, 90s, 90) or ms since 1970 (12 digits or more), got "${value}"`,
    );
  return { offset: Math.round(ms) };
}

/** An offset in ms as the recording's player shows it: `m:ss`, or `h:mm:ss`, with any fraction (`0:01.5`). */
export function clock(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  const total = Math.floor(whole / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const fraction = whole % 1000 ? `.${String(whole % 1000).padStart(3, '0')}`.replace(/0+$/, '') : '';
  const ss = `${String(s).padStart(2, '0')}${fraction}`;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
