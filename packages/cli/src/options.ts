import type { Page } from '@vss/client';
import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from './errors.js';
import { note } from './output.js';

/** A commander parser for an integer option within [min, max]. */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    return n;
  };
}

/** A commander parser for a number of seconds within [min, max] (fractions allowed). */
export function seconds(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected seconds from ${min} to ${max}, got "${value}"`);
    return n;
  };
}

/** A commander parser for one of `values`. */
export function oneOf<const T extends readonly string[]>(values: T): (value: string) => T[number] {
  return (value) => {
    if (!values.includes(value))
      throw new InvalidArgumentError(`expected one of ${values.join(', ')}, got "${value}"`);
    return value;
  };
}

/**
 * `--expires-in` of a link (replay, join): a number of seconds, or a number with a unit (`90m`,
 * `12h`, `7d`), from one minute to 30 days. Links expire on whole minutes, so seconds past a minute
 * are rounded up to the next one; less than a minute is refused rather than silently made one.
 */
export function expiresIn(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$/i.exec(value);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[(m?.[2] ?? 's').toLowerCase() as 's'];
  const seconds = m ? Number(m[1]) * unit : NaN;
  const minutes = Math.ceil(seconds / 60);
  if (!Number.isFinite(seconds) || seconds < 60 || minutes > 43_200)
    throw new InvalidArgumentError(
      `expected seconds, or a duration such as 90m, 12h or 7d, from 1 minute to 30 days; got "${value}"`,
    );
  return minutes;
}

/** The longest display name the API takes: characters (code points) once trimmed. */
export const DISPLAY_NAME_MAX = 64;
/** What the API refuses in a name: control characters (C0, DEL, C1) and the line and paragraph separators. */
const NOT_A_NAME = /[\p{Cc}\u2028\u2029]/u;

/** The length of a name as the API counts it: in characters, not UTF-16 units. */
export const nameLength = (name: string): number => [...name].length;

/**
 * A commander parser for a display name, by the API's rule: trimmed, then 1 to 64 characters of
 * any script (spaces allowed), no control character. Refused here, before anything runs.
 */
export function displayName(value: string): string {
  const name = value.trim();
  if (NOT_A_NAME.test(name))
    throw new InvalidArgumentError('expected a name without control characters (newlines, tabs, escapes)');
  const length = nameLength(name);
  if (length === 0 || length > DISPLAY_NAME_MAX)
    throw new InvalidArgumentError(
      `expected 1 to ${DISPLAY_NAME_MAX} characters once trimmed, got ${length}`,
    );
  return name;
}

/** Adds --limit, --cursor and --all to a list command. */
export function paged(cmd: Command): Command {
  return cmd
    .option('--limit <n>', 'items per page, 1 to 200 (the server defaults to 50)', integer(1, 200))
    .option('--cursor <cursor>', 'start at this page (printed on stderr after a page when there are more)')
    .option('--all', 'follow every page');
}

interface PagedOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/**
 * One page, or every page with --all. When more pages remain, says how to get the next one on
 * stderr, where it never mixes with the rows a script reads. --all fails on a cursor the server
 * already gave, rather than looping.
 */
export async function collect<T>(
  cmd: Command,
  fetchPage: (query: { limit?: number; cursor?: string }) => Promise<Page<T>>,
): Promise<T[]> {
  const { limit, cursor, all } = cmd.opts<PagedOptions>();
  const rows: T[] = [];
  let next: string | null | undefined = cursor;
  // A server that names a page it already gave would keep --all reading forever.
  const seen = new Set<string>();
  do {
    if (next) seen.add(next);
    const page = await fetchPage({ ...(limit ? { limit } : {}), ...(next ? { cursor: next } : {}) });
    rows.push(...page.items);
    next = page.nextCursor;
    if (all && next && seen.has(next))
      throw new Error(
        `the server gave the cursor "${next}" again after ${seen.size} pages: stopped rather than reading the same pages forever`,
      );
  } while (all && next);
  if (next) note(`more: add --cursor ${next} (or --all)`);
  return rows;
}

/**
 * Asks before something that cannot be undone; --yes answers for scripts. Without a terminal to
 * ask on, refuses rather than guessing.
 */
export async function confirmed(cmd: Command, question: string): Promise<boolean> {
  if (cmd.opts<{ yes?: boolean }>().yes) return true;
  if (!process.stdin.isTTY)
    throw new UsageError(`${question.replace(/\?$/, '')}: confirm with --yes (no terminal to ask on)`);
  // Loaded when there is a question to ask: starting every other command without it is quicker.
  const { default: confirm } = await import('@inquirer/confirm');
  return confirm({ message: question, default: false }, { output: process.stderr });
}
