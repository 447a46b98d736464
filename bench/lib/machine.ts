import { readFileSync } from 'node:fs';

/** Clock ticks of /proc/stat (USER_HZ), 100 on every mainstream Linux. */
const TICK_S = 0.01;

/** Whole-machine CPU time so far, from the `cpu` line of /proc/stat, in seconds summed over cores. */
export interface MachineCpu {
  /** user + nice + system + irq + softirq */
  busyS: number;
  /** interrupt and softirq time (on loopback, much of the TCP work), not charged to any process */
  irqS: number;
  /** time the hypervisor ran something else while a vCPU wanted to run */
  stealS: number;
  iowaitS: number;
  idleS: number;
}

/** One reading of /proc/stat; null when it cannot be read. */
export function readMachineCpu(): MachineCpu | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return {
      busyS: (user! + nice! + system! + irq! + softirq!) * TICK_S,
      irqS: (irq! + softirq!) * TICK_S,
      stealS: (steal ?? 0) * TICK_S,
      iowaitS: iowait! * TICK_S,
      idleS: idle! * TICK_S,
    };
  } catch {
    return null;
  }
}

/**
 * Scheduler statistics of one thread (its main thread by default) from
 * /proc/<pid>/task/<tid>/schedstat: seconds on a CPU, and seconds runnable but waiting for one.
 */
export function readSchedstat(pid: number, tid = pid): { runS: number; waitS: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return { runS: run! / 1e9, waitS: wait! / 1e9 };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet: less than `maxBusyCores` of CPU in use over a 500 ms sample
 * (everything counted: run it while the benchmark itself is idle). Gives up after `timeoutMs`.
 * Returns the busy cores of the last sample.
 */
export async function waitForQuiet(maxBusyCores: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + Math.max(0, timeoutMs);
  for (;;) {
    const a = readMachineCpu();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    const b = readMachineCpu();
    if (!a || !b) return NaN;
    const busy = (b.busyS - a.busyS) / ((Date.now() - t0) / 1000);
    if (busy < maxBusyCores || Date.now() >= deadline) return busy;
  }
}
