/**
 * The playback benchmark's readers as it runs them (bench/playback.ts): each in a child process
 * (`ChildReader`), and the fixture's files as they are read through before the rounds.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_WINDOW_BYTES, MAX_WINDOW_EVENTS } from '@vss/server/tools';
import type { BaselineResult } from './playback-baseline.ts';
import type { AnswerCaps } from './playback-check.ts';
import type { ReaderResult } from './playback-reader.ts';
import { ROOT } from './server.ts';

/** The window of every answer: 30 s of the recording. */
export const WINDOW_MS = 30_000;
/** The caps of one answer, the server's: the store reader and the baseline group bodies by them. */
export const ANSWER_CAPS: AnswerCaps = { events: MAX_WINDOW_EVENTS, bytes: MAX_WINDOW_BYTES };

export type Mode = 'http' | 'baseline' | 'store' | 'floor';
export const MODES: Mode[] = ['http', 'baseline', 'store', 'floor'];
/** The readers that GET answers over HTTP from a server process, whose CPU and memory are measured. */
export const overHttp = (m: Mode): boolean => m === 'http' || m === 'floor';
export type Result = ReaderResult | BaselineResult;

/**
 * A reader child process (bench/lib/playback-reader.ts or playback-baseline.ts): one task per
 * message, answered by its id.
 */
export class ChildReader<T, R> {
  private readonly child: ChildProcess;
  private next = 1;
  private readonly waiting = new Map<number, { ok: (r: R) => void; fail: (e: Error) => void }>();

  constructor(
    private readonly name: string,
    file: string,
    envFlag: string,
  ) {
    const env: NodeJS.ProcessEnv = { ...process.env, [envFlag]: '1' };
    this.child = fork(join(ROOT, file), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: { id: number; result?: R; error?: string }) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) w.fail(new Error(`${this.name}: ${msg.error}`));
      else w.ok(msg.result!);
    });
    this.child.on('exit', (code, signal) => {
      for (const w of this.waiting.values()) w.fail(new Error(`${this.name} exited (${code ?? signal})`));
      this.waiting.clear();
    });
  }

  run(task: T): Promise<R> {
    const id = this.next++;
    return new Promise((ok, fail) => {
      this.waiting.set(id, { ok, fail });
      this.child.send({ id, task });
    });
  }

  /** Disconnects (the child exits on that); kills it if it is still there a second later. */
  stop(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.disconnect();
    setTimeout(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    }, 1000).unref();
  }
}

/** Reads a file once, so that every reader starts from the page cache. */
export function readThrough(file: string): number {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  let total = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      total += n;
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

export const fileBytes = (f: string) => (existsSync(f) ? statSync(f).size : 0);

/** A session's segment files (DATA_DIR/segments/<session>/<n>.seg), in segment order. */
export function segmentFiles(dataDir: string, sessionId: string): string[] {
  const dir = join(dataDir, 'segments', sessionId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d+\.seg$/.test(f))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((f) => join(dir, f));
}

export interface Pass {
  result: Result;
  /** server CPU seconds during the pass (http only) */
  serverCpuS: number;
  /** server peak RSS during the pass (VmHWM after a reset), bytes (http only) */
  serverPeakRss: number;
}

/** Payload MB/s and events/s of a pass. */
export const mbps = (p: Pass) => p.result.bytes / 1e6 / p.result.wallS;
export const eps = (p: Pass) => p.result.events / p.result.wallS;

export function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
