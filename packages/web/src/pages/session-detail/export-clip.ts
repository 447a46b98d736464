import { formatDuration } from '../../ui/format';
import type { ExportJob, Layout } from './types';

/** The recording's span on the session's clock (ms since 1970), from its manifest. */
export interface Span {
  start_ts: number;
  end_ts: number;
}

/**
 * A time typed in a clip field, from the recording's start: `1:30`, `1:02:03`, `90` (seconds),
 * `1:30.5`. Null when it is not one (`1:75` is a typo, not a time).
 */
export function parseClock(text: string): number | null {
  const parts = text.trim().replace(',', '.').split(':');
  if (parts.length > 3 || !/^\d+(\.\d+)?$/.test(parts.at(-1)!)) return null;
  if (parts.slice(0, -1).some((p) => !/^\d+$/.test(p))) return null;
  const numbers = parts.map(Number);
  // Every field after the first counts up to 59.
  if (numbers.slice(1).some((n) => n >= 60)) return null;
  return Math.round(numbers.reduce((total, n) => total * 60 + n, 0) * 1000);
}

/** A clip as typed: empty fields mean the recording's start and end. */
export interface ClipFields {
  from: string;
  to: string;
}

/** What a clip asks for (offsets from the recording's start, ms), or why it cannot be made. */
export interface ClipCheck {
  from?: number;
  to?: number;
  errors: { from?: string; to?: string };
}

/**
 * Checks a clip in words a person understands: times written as minutes and seconds, the end
 * after the start, neither past the end of the recording (when its span is known).
 */
export function checkClip(fields: ClipFields, span?: Span): ClipCheck {
  const errors: ClipCheck['errors'] = {};
  const read = (text: string, which: 'start' | 'end') => {
    if (text.trim() === '') return undefined;
    const ms = parseClock(text);
    if (ms === null)
      errors[which === 'start' ? 'from' : 'to'] =
        `Write the ${which} as minutes and seconds, like ${which === 'start' ? '1:30' : '2:45'}`;
    return ms ?? undefined;
  };
  const from = read(fields.from, 'start');
  const to = read(fields.to, 'end');
  if (from !== undefined && to !== undefined && to <= from) errors.to = 'The end must be after the start';
  if (span) {
    const length = span.end_ts - span.start_ts;
    const past = `That is past the end of the recording (${formatDuration(length)})`;
    if (from !== undefined && from >= length) errors.from ??= past;
    if (to !== undefined && to > length) errors.to ??= past;
  }
  return { from, to, errors };
}

const LAYOUT_LABEL: Record<Layout, string> = {
  grid: 'Grid',
  presenter: 'Presenter',
  speaker: 'Active speaker',
};

/**
 * What an export is, in a line: "Grid, landscape", "Active speaker, vertical · 1080p · 0:10–0:20",
 * "Audio only · 1:00–2:30". A clip is shown from the recording's start when it is known.
 */
export function describeExport(job: ExportJob, names: Record<string, string>, start?: number): string {
  const gaps = job.keep_gaps ? ', paused parts kept' : '';
  const parts: string[] = [];
  if (job.format === 'm4a') parts.push(`Audio only${gaps}`);
  else {
    const focus = job.focus ? `, focus ${names[job.focus] ?? job.focus}` : '';
    parts.push(`${LAYOUT_LABEL[job.layout]}, ${job.orientation}${focus}${gaps}`);
    if (job.resolution === '1080p') parts.push('1080p');
    if (!job.names) parts.push('no names');
  }
  if (job.from_ts !== null && job.to_ts !== null)
    parts.push(
      start !== undefined
        ? `${formatDuration(job.from_ts - start)}–${formatDuration(job.to_ts - start)}`
        : 'a clip',
    );
  if (job.auto) parts.push('automatic');
  return parts.join(' · ');
}
