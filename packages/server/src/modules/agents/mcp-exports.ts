import { z } from 'zod';
import type { Principal } from '../../http/principal.js';
import type { DefineTool, McpDeps } from './mcp-deps.js';

const sessionId = z.string().uuid().describe('the session id (a UUID)');
/** A time on the session's clock: ms since 1970, as the manifest and the timeline give them. */
const sessionTs = z.number().int().min(0);

/** The export tools: list a session's exports, read one, and queue one with its options. */
export function registerExportTools(tool: DefineTool, deps: McpDeps, principal: Principal): void {
  tool(
    'list_exports',
    'mcp:read',
    {
      title: "List a session's exports",
      description:
        'Every export of the session with its status (queued, processing, completed, failed), progress, options (layout, format, resolution, names, clip from_ts/to_ts) and download address. Changes nothing.',
      input: { session_id: sessionId },
    },
    async ({ session_id }) => deps.exports.ofSession(principal, session_id as string),
  );
  tool(
    'get_export',
    'mcp:read',
    {
      title: 'Get an export and its progress',
      description:
        'One export: status, progress (0 to 1), its options and, once completed, its size, duration and download address. Changes nothing.',
      input: { export_id: z.string().uuid().describe('the export job id returned by start_export') },
    },
    async ({ export_id }) => deps.exports.get(principal, export_id as string),
  );
  tool(
    'start_export',
    'mcp:write',
    {
      title: 'Start an export (MP4 video, or M4A sound)',
      description:
        'Queues a render of the ended session: an MP4 (H.264 + AAC) of everyone, or with format m4a the sound alone; the whole recording, or a clip between from_ts and to_ts (take them from get_manifest: start_ts is where the recording starts). Returns the job id; follow it with get_export. Counts toward the free tier. Refused (BAD_REQUEST naming the field) when to_ts is not after from_ts, when the clip lies wholly outside the recording, or focus without the presenter layout; CONFLICT while the session is live or when nothing was recorded.',
      input: {
        session_id: sessionId,
        layout: z
          .enum(['grid', 'presenter', 'speaker'])
          .default('grid')
          .describe(
            'grid: everyone alike; presenter: one participant (or a screen share) large, the others in a strip; speaker: the presenter layout whose large tile follows whoever is speaking',
          ),
        orientation: z
          .enum(['landscape', 'vertical'])
          .default('landscape')
          .describe('landscape (1280x720, 1920x1080 at 1080p) or vertical (720x1280, 1080x1920)'),
        resolution: z.enum(['720p', '1080p']).default('720p').describe('default 720p'),
        format: z
          .enum(['mp4', 'm4a'])
          .default('mp4')
          .describe(
            'mp4: pictures and sound; m4a: the sound alone (every microphone mixed), much faster to make; layout, orientation, resolution, focus and names then do not apply',
          ),
        focus: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('with layout presenter: the participant in the large tile'),
        names: z.boolean().default(true).describe("draw each tile's name bar (default true)"),
        from_ts: sessionTs
          .optional()
          .describe(
            "a clip's start, ms since 1970 on the session's clock (the manifest's start_ts plus an offset); default: the recording's start",
          ),
        to_ts: sessionTs
          .optional()
          .describe("a clip's end (exclusive), ms since 1970, after from_ts; default: the recording's end"),
        keep_gaps: z
          .boolean()
          .default(false)
          .describe('keep the spans in which recording was paused (silence and names); default: cut out'),
      },
    },
    async (args) =>
      deps.exports.enqueue(
        deps.db,
        principal,
        args.session_id as string,
        {
          layout: args.layout as 'grid' | 'presenter' | 'speaker',
          orientation: args.orientation as 'landscape' | 'vertical',
          resolution: args.resolution as '720p' | '1080p',
          format: args.format as 'mp4' | 'm4a',
          focus: args.focus as string | undefined,
          names: args.names as boolean,
          from_ts: args.from_ts as number | undefined,
          to_ts: args.to_ts as number | undefined,
          keep_gaps: args.keep_gaps as boolean,
        },
        'body',
      ),
  );
}
