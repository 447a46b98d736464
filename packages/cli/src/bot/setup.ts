/** What a bot is set up with, and small helpers of its life. */
import { LiveError } from '@vss/client';
import type { ToneEncoder } from './tone.js';
import type { BotEvent } from './types.js';
import type { ForcedStep } from './uplink.js';

export type LeaveReason = 'done' | 'aborted' | 'disconnected' | 'failed';

export interface BotSetup {
  /** 1-based number of the bot; picks its pitch */
  index: number;
  userId: string;
  /** ws(s)://host:port */
  url: string;
  sessionId: string;
  token: (userId: string) => Promise<string>;
  durationS: number;
  chatEveryS: number;
  joinTimeoutMs: number;
  /** the shared encoder of the bot's pitch */
  tone: ToneEncoder;
  /** layers sent of each picture: 1 to 3 */
  encodings: number;
  /** uplink steps to take instead of measuring (tests, demos) */
  forcedSteps?: ForcedStep[];
  emit: (e: BotEvent) => void;
}

/** Resolves with `p`'s outcome, or with `fallback` after `ms`; clears its timer either way. */
export async function within<T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function describe(err: unknown): string {
  if (err instanceof LiveError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
