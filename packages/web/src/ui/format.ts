/** How the dashboard writes times, sizes and durations. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO timestamp as a local date and time; `—` for none. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

/** Bytes in B, KB, MB, GB (powers of 1000, as billing counts them). */
export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/** Milliseconds as m:ss or h:mm:ss. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

const wholeMinutes = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const smallMinutes = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 2 });

/** Participant-minutes: a tenth of a minute from 10 on, two significant digits below (0.05 is not 0). */
export function formatMinutes(v: number): string {
  return Math.abs(v) >= 10 || v === 0 ? wholeMinutes.format(v) : smallMinutes.format(v);
}
