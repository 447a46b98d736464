/**
 * npm run bench -- call [--quick] [--seconds=N] [--people=N]
 *
 * A call on this machine as people make it: three members (--people) in the dashboard's live room,
 * each in its own headless Chromium context with the fake camera and microphone, the server started
 * as `npm start` starts it, everything on the same 2 cores, for 60 s (--seconds; --quick: 20).
 * Then the recording is read back through the playback API, and for every recorded camera: its
 * frames, its frame rate, and its longest gap between two frames while all were in the call.
 * Target: no recorded camera has a gap over 1.5 s (a publisher's adaptation lowers its camera's
 * rate and frame rate, never stops it; a gap over that shows as a held picture in the export).
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './lib/chromium.ts';
import { joinLive, member } from './lib/member.ts';
import type { BenchOptions } from './run.ts';
import { intFlag } from './lib/args.ts';
import { expectCall, type Answer } from './lib/http.ts';
import { startVss } from './lib/server.ts';
import { fmt, printTable } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';

const GAP_TARGET_MS = 1500;

interface Event {
  seq: number;
  stream_id: string;
  timestamp_ms: number;
}

type Window = { data: { events: Event[]; next_base_seq: number | null } };

/** Every event of the recording, window by window, as a player reads it. */
async function readAll(base: string, auth: Record<string, string>, sessionId: string): Promise<Event[]> {
  const out: Event[] = [];
  let baseSeq: number | null = null;
  for (;;) {
    const q: string = `from_ts=0&window_size=30000${baseSeq === null ? '' : `&base_seq=${baseSeq}`}`;
    const res: Answer<Window> = await expectCall<Window>(
      200,
      `${base}/v1/sessions/${sessionId}/playback?${q}`,
      { headers: auth },
    );
    out.push(...res.json.data.events);
    if (res.json.data.next_base_seq === null) return out;
    baseSeq = res.json.data.next_base_seq;
  }
}

export default async function call({ quick, args }: BenchOptions): Promise<void> {
  const seconds = intFlag(args, 'seconds') ?? (quick ? 20 : 60);
  const people = intFlag(args, 'people') ?? 3;
  const server = await startVss();
  let browser: Browser | null = null;
  try {
    const base = server.url;
    const { projectId, auth, sessionId } = await benchTenant(base, 'call');
    const cookies = await Promise.all(
      Array.from({ length: people }, (_, i) => member(base, projectId, auth, i)),
    );
    browser = await launchChromium();
    const pages: Page[] = [];
    for (let i = 0; i < people; i++)
      pages.push(await joinLive(browser, base, sessionId, cookies[i]!, `person ${i + 1}`));
    const allIn = Date.now();
    console.log(`call: ${people} people in the live room; running ${seconds} s`);
    const cpuBefore = server.sampler.mark();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const serverCores = server.sampler.cpuSince(cpuBefore) / seconds;
    const allOut = Date.now();
    for (const p of pages) await p.getByRole('button', { name: 'Leave' }).click();

    const events = await readAll(base, auth, sessionId);
    const cams = new Map<string, number[]>();
    for (const e of events)
      if (/^media\/[^/]+\/cam$/.test(e.stream_id)) {
        const list = cams.get(e.stream_id) ?? [];
        list.push(e.timestamp_ms);
        cams.set(e.stream_id, list);
      }
    const rows = [...cams.entries()].map(([stream, all], i) => {
      const ts = all.filter((t) => t >= allIn && t <= allOut).sort((a, b) => a - b);
      let gap = 0;
      for (let k = 1; k < ts.length; k++) gap = Math.max(gap, ts[k]! - ts[k - 1]!);
      // the ends of the span count too: a camera silent from its last frame to the end has a gap
      if (ts.length) gap = Math.max(gap, ts[0]! - allIn, allOut - ts.at(-1)!);
      else gap = allOut - allIn;
      return {
        camera: `person ${i + 1} (${stream.split('/')[1]!.slice(0, 8)}…)`,
        frames: ts.length,
        fps: ts.length / seconds,
        gap,
      };
    });
    printTable(
      ['recorded camera', 'frames', 'fps', 'longest gap ms', 'target'],
      rows.map((r) => [r.camera, String(r.frames), fmt(r.fps, 1), String(r.gap), `<= ${GAP_TARGET_MS}`]),
    );
    const worst = Math.max(...rows.map((r) => r.gap), rows.length < people ? Infinity : 0);
    console.log(
      `server: ${fmt(serverCores, 2)} cores over the call; cameras recorded: ${rows.length} of ${people}`,
    );
    console.log(
      `target (every recorded camera, gap <= ${GAP_TARGET_MS} ms): ${worst <= GAP_TARGET_MS ? 'MET' : 'NOT MET'} (longest ${worst} ms)`,
    );
    console.log(
      JSON.stringify({
        bench: 'call',
        seconds,
        people,
        server_cores: serverCores,
        cameras: rows,
        longest_gap_ms: worst,
        target_met: worst <= GAP_TARGET_MS,
      }),
    );
  } finally {
    await browser?.close();
    await server.stop();
  }
}
