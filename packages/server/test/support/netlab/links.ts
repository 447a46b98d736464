/**
 * Slow links on this machine: a network namespace joined to the host by a veth pair, each
 * direction shaped by a token bucket (`tc tbf`). This kernel has no netem, and a rate limit with
 * a short queue is what a slow uplink or downlink is: a bottleneck whose queue fills.
 *
 *   host (root namespace)                      namespace
 *   10.a.b.c+1  <vnl…h> ───── veth ───── <vnl…n>  10.a.b.c+2
 *        egress tbf = downlink (to the namespace)   egress tbf = uplink (from the namespace)
 *
 * Needs root, `ip` and `tc` (iproute2). Tests call `netlabUnavailable()` first and skip with its
 * reason. Names carry this process's pid, so parallel runs never collide, and what a crashed run
 * left behind is swept by the next one.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Link {
  /** the namespace's name (`ip netns exec <ns> …`) */
  ns: string;
  /** the host side's address: what a process in the namespace connects to */
  hostAddress: string;
  /** the namespace side's address */
  nsAddress: string;
  /** the rates now in force, kbit/s (0: unshaped) */
  readonly downKbit: number;
  readonly upKbit: number;
  /** Changes the rates at once (tc qdisc replace); 0 or undefined: unshaped. */
  setRate(downKbit: number | undefined, upKbit: number | undefined): void;
  /** Runs a program inside the namespace. */
  spawn(cmd: string, args: string[], opts?: SpawnOptions): ChildProcess;
  /** Removes the namespace and the veth pair; idempotent. */
  destroy(): void;
}

const PREFIX = 'vssnl';

function run(args: string[]): string {
  return execFileSync(args[0]!, args.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryRun(args: string[]): void {
  try {
    run(args);
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let unavailable: string | null | undefined;

/** Why slow links cannot be made here, or null when they can. */
export function netlabUnavailable(): string | null {
  if (unavailable !== undefined) return unavailable;
  unavailable = probe();
  return unavailable;
}

function probe(): string | null {
  if (process.platform !== 'linux') return `network namespaces need Linux, this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (ip netns add); not running as root';
  for (const tool of ['ip', 'tc'])
    try {
      run([tool, '-V']);
    } catch {
      return `\`${tool}\` (iproute2) is not installed`;
    }
  const name = `${PREFIX}-${process.pid}-probe`;
  try {
    run(['ip', 'netns', 'add', name]);
  } catch (err) {
    return `cannot create a network namespace: ${((err as { stderr?: string }).stderr ?? String(err)).trim()}`;
  } finally {
    tryRun(['ip', 'netns', 'del', name]);
  }
  return null;
}

/** Namespaces of runs whose process is gone (killed before its exit handler ran). */
function sweepStale(): void {
  let list = '';
  try {
    list = run(['ip', 'netns', 'list']);
  } catch {
    return;
  }
  for (const line of list.split('\n')) {
    const m = new RegExp(`^(${PREFIX}-(\\d+)-\\S+)`).exec(line);
    if (m && !alive(Number(m[2]))) tryRun(['ip', 'netns', 'del', m[1]!]);
  }
}

/** A 10.a.b.c/30 whose /24 no interface of the host uses yet. */
function freeSubnet(): [number, number, number] {
  const used = run(['ip', '-o', '-4', 'addr', 'show']);
  for (let i = 0; i < 200; i++) {
    const a = 64 + Math.floor(Math.random() * 64);
    const b = Math.floor(Math.random() * 256);
    if (!used.includes(` 10.${a}.${b}.`)) return [a, b, 4 * Math.floor(Math.random() * 63)];
  }
  throw new Error('no free 10.x.y.0/30 found for a link');
}

/**
 * The token bucket of one direction. burst: a few full-size packets (at least 6 KB, or 8 ms of
 * the rate above 6 Mbit/s): smaller starves TCP at low rates (a bucket below one segment plus
 * headers stalls), larger lets bursts through at line speed, which no real slow link does.
 * latency 80 ms: the link's own queue holds at most that, so that its delay is a small, known
 * part of the 300–500 ms targets and what builds beyond it is the sender's queue (the server's,
 * the bot's), which is what the tests look at; a queue much shorter than this makes TCP lose
 * throughput to drops on a 250 kbit/s link.
 */
function shape(ns: string | null, dev: string, kbit: number | undefined): void {
  const tc = ns ? ['ip', 'netns', 'exec', ns, 'tc'] : ['tc'];
  if (!kbit) {
    tryRun([...tc, 'qdisc', 'del', 'dev', dev, 'root']);
    return;
  }
  const burst = Math.max(6144, Math.round((kbit * 1000 * 0.008) / 8));
  run([
    ...tc,
    'qdisc',
    'replace',
    'dev',
    dev,
    'root',
    'tbf',
    'rate',
    `${kbit}kbit`,
    'burst',
    String(burst),
    'latency',
    '80ms',
  ]);
}

let counter = 0;
const links = new Set<Link>();
process.once('exit', () => {
  for (const link of links) link.destroy();
});

/** A namespace behind a link of these rates (kbit/s; 0 or undefined: unshaped). */
export function createLink(rates: { downKbit?: number; upKbit?: number } = {}): Link {
  const reason = netlabUnavailable();
  if (reason) throw new Error(`netlab unavailable: ${reason}`);
  if (counter === 0) sweepStale();
  const n = counter++;
  const ns = `${PREFIX}-${process.pid}-${n}`;
  // Interface names have at most 15 characters: the pid and the number in base 36.
  const tag = `${process.pid.toString(36)}${n.toString(36)}`;
  const hostDev = `vnl${tag}h`;
  const nsDev = `vnl${tag}n`;
  const [a, b, c] = freeSubnet();
  const hostAddress = `10.${a}.${b}.${c + 1}`;
  const nsAddress = `10.${a}.${b}.${c + 2}`;
  let destroyed = false;
  let down = 0;
  let up = 0;
  const link: Link = {
    ns,
    hostAddress,
    nsAddress,
    get downKbit() {
      return down;
    },
    get upKbit() {
      return up;
    },
    setRate(downKbit, upKbit) {
      shape(null, hostDev, downKbit);
      shape(ns, nsDev, upKbit);
      down = downKbit ?? 0;
      up = upKbit ?? 0;
    },
    spawn(cmd, args, opts = {}) {
      return spawn('ip', ['netns', 'exec', ns, cmd, ...args], opts);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      links.delete(link);
      // Deleting the host side removes its peer at once; deleting the namespace alone leaves the
      // pair to be cleaned up by the kernel later, and its addresses in use meanwhile.
      tryRun(['ip', 'link', 'del', hostDev]);
      tryRun(['ip', 'netns', 'del', ns]);
    },
  };
  links.add(link);
  try {
    run(['ip', 'netns', 'add', ns]);
    run(['ip', 'link', 'add', hostDev, 'type', 'veth', 'peer', 'name', nsDev]);
    run(['ip', 'link', 'set', nsDev, 'netns', ns]);
    run(['ip', 'addr', 'add', `${hostAddress}/30`, 'dev', hostDev]);
    run(['ip', 'link', 'set', hostDev, 'up']);
    run(['ip', '-n', ns, 'addr', 'add', `${nsAddress}/30`, 'dev', nsDev]);
    run(['ip', '-n', ns, 'link', 'set', nsDev, 'up']);
    run(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    link.setRate(rates.downKbit, rates.upKbit);
  } catch (err) {
    link.destroy();
    const e = err as { stderr?: string; message: string };
    throw new Error(`could not create the link ${ns}: ${(e.stderr ?? e.message).trim()}`);
  }
  return link;
}
