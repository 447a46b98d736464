/** `--name=value` command-line flags of the benchmarks. */

/** The value of `--name=…`, or undefined. */
export function strFlag(args: string[], name: string): string | undefined {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : undefined;
}

/** `--name=N` as a positive whole number, or undefined; anything else throws. */
export function intFlag(args: string[], name: string): number | undefined {
  const v = strFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
  return n;
}

/** `--name=X` as a positive number (fractions allowed), or undefined; anything else throws. */
export function numFlag(args: string[], name: string): number | undefined {
  const v = strFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}
