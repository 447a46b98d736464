import type TableType from 'cli-table3';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { globals } from './context.js';

/** A column of a table: the field, its heading, and how to show a value. */
export interface Column<T> {
  key: keyof T & string;
  label?: string;
  format?: (value: unknown, row: T) => string;
}

/**
 * What a terminal acts on rather than shows: C0 controls (ESC starts escape sequences, BEL ends
 * window titles, CR rewrites a line), DEL, C1 controls (CSI in 8 bits), and Unicode's line
 * separators and direction overrides. Text from a server passes through `printable` or
 * `terminalSafe` before it is written, whatever the server sent.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** Characters a JSON text may hold raw inside its strings that a terminal still acts on. */
const CONTROLS_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escaped = (c: string) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One value on one line: every control character shown as its escape (`\u001b`, `\r`, `\n`). */
export function printable(text: string): string {
  return text.replace(CONTROLS, escaped);
}

/** Text for people, several lines allowed: newlines and tabs kept, every other control character escaped. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROLS_BUT_LINES, escaped);
}

/** JSON text as JSON.stringify writes it, with the controls it leaves raw (DEL, C1) escaped too: the same value. */
export function jsonSafe(json: string): string {
  return json.replace(CONTROLS_IN_JSON, escaped);
}

/** Writes text for people on stdout, control characters escaped. */
export function out(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** A value as a table cell: ISO timestamps shortened to the second, null as `-`, controls escaped. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value))
    return value.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return jsonSafe(JSON.stringify(value));
  return printable(String(value));
}

/** A borderless, aligned table, as `kubectl get` prints them. */
function table(head: string[], rows: string[][]): string {
  // Required when a table is printed (cli-table3 is CommonJS): --json and one-object answers start without it.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof TableType;
  const t = new Table({
    head,
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  t.push(...rows);
  return t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** Prints rows: JSON with --json, else a table (or a line saying there are none). */
export function printList<T>(cmd: Command, rows: T[], columns: Column<T>[], none = 'none'): void {
  if (globals(cmd).json) return printJson(rows);
  if (rows.length === 0) {
    process.stdout.write(`(${none})\n`);
    return;
  }
  const head = columns.map((c) => c.label ?? c.key.toUpperCase().replace(/_/g, ' '));
  const body = rows.map((r) =>
    columns.map((c) => (c.format ? printable(c.format(r[c.key], r)) : cell(r[c.key]))),
  );
  process.stdout.write(table(head, body) + '\n');
}

/** Prints one object: JSON with --json, else `field  value` lines. */
export function printObject(cmd: Command, value: object, fields?: string[]): void {
  if (globals(cmd).json) return printJson(value);
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([k]) => !fields || fields.includes(k),
  );
  const width = Math.max(...entries.map(([k]) => printable(k).length));
  process.stdout.write(
    entries.map(([k, v]) => `${printable(k).padEnd(width)}  ${cell(v)}`).join('\n') + '\n',
  );
}

/** Prints a message for people (stdout), or the given value as JSON with --json. */
export function printDone(cmd: Command, message: string, json: unknown): void {
  if (globals(cmd).json) return printJson(json);
  out(message + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(jsonSafe(JSON.stringify(value, null, 2)) + '\n');
}

/** A note for people on stderr (progress, hints), never mixed into what scripts read. */
export function note(message: string): void {
  process.stderr.write(terminalSafe(message) + '\n');
}

/** Bytes for people: 1.5 GB, 12 MB (powers of 1000, as the service bills them). */
export function bytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  const shown = i === 0 ? String(v) : v.toFixed(v < 10 ? 2 : 1).replace(/\.?0+$/, '');
  return `${n < 0 ? '-' : ''}${shown} ${units[i]}`;
}

/** Minutes for people: at most two decimals. */
export function minutes(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** A file size for people: 2.1 MiB (powers of 1024, as file managers show them). */
export function fileSize(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '-';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
