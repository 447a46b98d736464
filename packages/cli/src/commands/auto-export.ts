import type { DataOf } from '@vss/client';
import { Option, type Command } from 'commander';
import { client, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { projectFor } from '../identity.js';
import { printJson, printObject } from '../output.js';
import { FORMATS, LAYOUTS, ORIENTATIONS, RESOLUTIONS } from '../export-choices.js';

type Preset = DataOf<'/v1/projects/{projectId}/auto-export', 'get'>;
type PresetOptions = Preset['options'];

/** The preset as lines: whether it is on, each option (the server's default where none is set), when it was set. */
function show(cmd: Command, p: Preset): void {
  if (globals(cmd).json) return printJson(p);
  const o = p.options;
  printObject(cmd, {
    enabled: p.enabled ? 'yes: every session of the project is exported once its recording is ready' : 'no',
    format: o.format ?? 'mp4',
    layout: o.layout ?? 'grid',
    orientation: o.orientation ?? 'landscape',
    resolution: o.resolution ?? '720p',
    names: o.names ?? true,
    keep_gaps: o.keep_gaps ?? false,
    updated_at: p.updated_at ?? 'never set',
  });
}

interface SetOptions {
  enable?: boolean;
  disable?: boolean;
  layout?: PresetOptions['layout'];
  orientation?: PresetOptions['orientation'];
  resolution?: PresetOptions['resolution'];
  format?: PresetOptions['format'];
  names?: boolean;
  keepGaps?: boolean;
}

const SET_HELP = `
Each flag changes what it names; the rest of the preset stays as it was (a new preset starts from
the defaults: a 720p landscape grid MP4 with names, paused spans cut out). --disable keeps the
options for the next --enable.
  vss auto-export set --enable --format m4a          # the sound of every session, for transcripts
  vss auto-export set --enable --layout speaker --orientation vertical --resolution 1080p
  vss auto-export set --disable
Each auto-export is an export job like any other (\`auto: true\`): follow it with \`vss exports\`, or
with an \`export.completed\` webhook.`;

export function register(program: Command): void {
  const autoExport = program
    .command('auto-export')
    .description("a project's auto-export preset: every session exported, without asking, once it ends");

  autoExport
    .command('get')
    .description("print the project's auto-export preset")
    .option('--project <projectId>', "the project (default: the API key's own)")
    .action(async (_o, cmd: Command) => {
      const vss = client(cmd);
      const projectId = await projectFor(cmd, vss);
      show(cmd, await vss.get('/v1/projects/{projectId}/auto-export', { params: { path: { projectId } } }));
    });

  autoExport
    .command('set')
    .description("turn the project's auto-export on or off, and choose how sessions are exported")
    .option('--project <projectId>', "the project (default: the API key's own)")
    .option('--enable', 'export every session of the project once its recording is ready')
    .option('--disable', 'stop exporting sessions automatically (exports already queued go on)')
    .addOption(
      new Option(
        '--layout <layout>',
        'grid: everyone alike; presenter: one large, the others in a strip; speaker: the large tile follows who speaks',
      ).choices(LAYOUTS),
    )
    .addOption(
      new Option('--orientation <orientation>', 'landscape (1280x720) or vertical (720x1280)').choices(
        ORIENTATIONS,
      ),
    )
    .addOption(
      new Option('--resolution <resolution>', '720p, or 1080p (1920x1080 / 1080x1920)').choices(RESOLUTIONS),
    )
    .addOption(
      new Option('--format <format>', 'mp4 (pictures and sound) or m4a (the sound alone)').choices(FORMATS),
    )
    .option('--names', "draw each participant's name on their picture")
    .option('--no-names', 'leave the pictures without names')
    .option('--keep-gaps', 'keep the spans in which recording was paused, as silence and names')
    .option('--no-keep-gaps', 'cut the paused spans out')
    .addHelpText('after', SET_HELP)
    .action(async (o: SetOptions, cmd: Command) => {
      if (o.enable && o.disable) throw new UsageError('give --enable or --disable, not both');
      const vss = client(cmd);
      const projectId = await projectFor(cmd, vss);
      const path = { params: { path: { projectId } } };
      const current = await vss.get('/v1/projects/{projectId}/auto-export', path);
      const options: PresetOptions = { ...current.options };
      if (o.layout !== undefined) options.layout = o.layout;
      if (o.orientation !== undefined) options.orientation = o.orientation;
      if (o.resolution !== undefined) options.resolution = o.resolution;
      if (o.format !== undefined) options.format = o.format;
      if (o.names !== undefined) options.names = o.names;
      if (o.keepGaps !== undefined) options.keep_gaps = o.keepGaps;
      const enabled = o.enable ? true : o.disable ? false : current.enabled;
      show(
        cmd,
        await vss.put('/v1/projects/{projectId}/auto-export', { ...path, body: { enabled, options } }),
      );
    });
}
