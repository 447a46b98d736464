/** Prints rows under a header as an aligned text table (numbers right-aligned). */
export function printTable(header: string[], rows: Array<Array<string | number>>, title?: string): void {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) =>
    rows.every((r) => typeof r[i] === 'number' || /^[-+]?[\d.,]+\s*\S*$/.test(String(r[i] ?? ''))),
  );
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] && i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  if (title) console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) console.log(line(r));
}

/** A number with sensible precision: 12 345, 123.4, 1.23, 0.123. */
export function fmt(n: number, digits?: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (digits !== undefined) return n.toFixed(digits);
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n).toLocaleString('en-US');
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

/** Rounds to `digits` decimals, for the JSON line. */
export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function mib(bytes: number): number {
  return bytes / (1024 * 1024);
}
