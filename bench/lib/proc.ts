import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ); 100 on every mainstream Linux. */
const CLK_TCK = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** One reading of a process: CPU time so far (user + system) and memory. */
export interface ProcReading {
  /** user + system CPU seconds since the process started */
  cpuS: number;
  userS: number;
  systemS: number;
  /** resident set size now, in bytes (VmRSS) */
  rssBytes: number;
  /** peak resident set size so far, in bytes (VmHWM) */
  peakRssBytes: number;
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status; null once the process is gone. */
export function readProc(pid: number): ProcReading | null {
  let stat: string;
  let status: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  const userS = Number(fields[11]) / CLK_TCK;
  const systemS = Number(fields[12]) / CLK_TCK;
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  };
  return { cpuS: userS + systemS, userS, systemS, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}

/**
 * Samples a process every `intervalMs` so that its last reading and peak RSS survive its exit.
 * `cpuSince(mark)` gives the CPU seconds spent between a mark and now.
 */
export class ProcSampler {
  private timer: NodeJS.Timeout | null = null;
  last: ProcReading | null = null;
  peakRssBytes = 0;

  constructor(
    readonly pid: number,
    intervalMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Takes a reading now (and keeps it); the previous one when the process is gone. */
  sample(): ProcReading | null {
    const r = readProc(this.pid);
    if (r) {
      this.last = r;
      this.peakRssBytes = Math.max(this.peakRssBytes, r.peakRssBytes, r.rssBytes);
    }
    return this.last;
  }

  /** CPU seconds used so far; pass the result to cpuSince() later. */
  mark(): number {
    return this.sample()?.cpuS ?? 0;
  }

  cpuSince(mark: number): number {
    return (this.sample()?.cpuS ?? mark) - mark;
  }

  stop(): void {
    this.sample();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** Resets the peak RSS (VmHWM) of a process to its current RSS; false when the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
