/** The name a downloaded export is saved under: the session's, and which part of it. */

/** Characters no file name may hold on some system (Windows the strictest), and controls. */
// eslint-disable-next-line no-control-regex -- control characters are what is removed
const UNSAFE = /[/\\:*?"<>|\u0000-\u001f\u007f]/g;
/** Longest session name kept, in code points: room for the span and extension on any file system. */
const NAME_MAX = 100;

/** A session's name made safe as part of a file name: unsafe characters as spaces, trimmed, shortened. */
export function safeName(name: string): string {
  const cleaned = name.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  // Dots at the ends hide the file or are dropped by Windows.
  const trimmed = [...cleaned]
    .slice(0, NAME_MAX)
    .join('')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  return trimmed || 'Untitled session';
}

/**
 * An offset in the recording as hours, minutes and seconds, with dashes (no ":" in file names);
 * a clip's start rounded down and its end up, so that the span named holds the clip.
 */
function clock(ms: number, round: (n: number) => number): string {
  const s = Math.max(0, round(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}-${pad(Math.floor(s / 60) % 60)}-${pad(s % 60)}`;
}

/**
 * `{session name} {YYYY-MM-DD}.mp4` for the whole recording, the day it started (UTC);
 * `{session name} {from}–{to}.mp4` for a clip, its span as offsets from the recording's start
 * (hh-mm-ss, as the clip was typed). `.m4a` for the sound alone.
 */
export function downloadName(
  sessionName: string,
  recordingStart: number,
  job: { format: 'mp4' | 'm4a'; from_ts: number | null; to_ts: number | null },
): string {
  const ext = job.format === 'm4a' ? 'm4a' : 'mp4';
  const part =
    job.from_ts === null && job.to_ts === null
      ? new Date(recordingStart).toISOString().slice(0, 10)
      : `${clock((job.from_ts ?? recordingStart) - recordingStart, Math.floor)}–${
          job.to_ts === null ? 'end' : clock(job.to_ts - recordingStart, Math.ceil)
        }`;
  return `${safeName(sessionName)} ${part}.${ext}`;
}
