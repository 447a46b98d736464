/**
 * Reads a V8 CPU profile (the `.cpuprofile` that `node --cpu-prof` writes at exit) and sums its
 * samples per function: self time (samples whose top frame is the function) and total time
 * (samples with the function anywhere on the stack, counted once per sample).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROOT } from './server.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  /** `name file:line`, the file relative to the repository (node_modules shortened to the package) */
  name: string;
  selfPct: number;
  totalPct: number;
}

function where(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    return `${pkg}/${rest[rest.length - 1]}`;
  }
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

/** Self and total share of the profile's samples, per function, heaviest self first. */
export function summarize(file: string): { samples: number; functions: FunctionCost[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) => {
    const f = n.callFrame;
    const at = where(f.url);
    return `${f.functionName || '(anonymous)'}${at ? ` ${at}:${f.lineNumber + 1}` : ''}`;
  };

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  // Samples of the same leaf node have the same stack: walk each distinct stack once.
  const perNode = new Map<number, number>();
  for (const id of profile.samples) perNode.set(id, (perNode.get(id) ?? 0) + 1);
  for (const [id, count] of perNode) {
    const leaf = byId.get(id)!;
    self.set(key(leaf), (self.get(key(leaf)) ?? 0) + count);
    const seen = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const k = key(n);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + count);
    }
  }
  const samples = profile.samples.length;
  const functions = [...total.keys()].map((name) => ({
    name,
    selfPct: ((self.get(name) ?? 0) / samples) * 100,
    totalPct: ((total.get(name) ?? 0) / samples) * 100,
  }));
  functions.sort((a, b) => b.selfPct - a.selfPct);
  return { samples, functions };
}
