import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { KEY_OR_USER } from '../../http/principal.js';
import { Nullable } from '../../http/schema-types.js';
import { ProjectParams } from '../../http/shared-schemas.js';
import type { AutoExportService } from './auto-export.js';
import { ExportOptions } from './schemas.js';

/** Drops each field's `default`: a preset keeps what it was given, the export fills in the rest. */
function asGiven<T extends { properties: Record<string, object> }>(schema: T): T {
  // Partial and Omit copy each field's schema: the request's ExportOptions keep their defaults.
  for (const field of Object.values(schema.properties)) delete (field as { default?: unknown }).default;
  return schema;
}

const DEFAULTS =
  'each optional, with the default of an export (`layout` grid, `orientation` landscape, `resolution` 720p, `format` mp4, `names` true, `keep_gaps` false) applied when a session is exported';

/**
 * The export options as a preset takes them: `ExportOptions`, every field optional; the
 * per-session ones are in it so that refusing them can say why.
 */
const PresetInput = asGiven(
  Type.Partial(ExportOptions, {
    additionalProperties: false,
    title: 'AutoExportOptionsInput',
    description: `The fields of \`POST /v1/sessions/{sessionId}/exports\`, ${DEFAULTS}. Unknown fields are refused, and so are \`focus\`, \`from_ts\` and \`to_ts\`, which belong to one session.`,
  }),
);

/** The options a preset holds, as the answer shows them: as they were given. */
const PresetOptions = asGiven(
  Type.Partial(Type.Omit(ExportOptions, ['focus', 'from_ts', 'to_ts']), {
    title: 'AutoExportOptions',
    description: `The export options of every auto-export as they were set, ${DEFAULTS}; empty while the preset was never set.`,
  }),
);

const ENABLED = Type.Boolean({
  description: 'true: every session of the project whose recording becomes ready is exported',
});

export const AutoExportBody = Type.Object(
  {
    enabled: ENABLED,
    options: PresetInput,
  },
  { additionalProperties: false, title: 'AutoExportInput' },
);

export const AutoExport = Type.Object(
  {
    enabled: ENABLED,
    options: PresetOptions,
    updated_at: Nullable(Type.String({ format: 'date-time' }), {
      description: 'when the preset was last set; null when it never was',
    }),
  },
  { title: 'AutoExport' },
);

const RULE = `While the preset is enabled, each session of the project is exported with its options once its recording is ready (after the session ended, when \`recording.ready\` is sent), without a request: the export job shows \`auto: true\` and ends like any other, in \`export.completed\` (or \`export.failed\`), sent to the project's webhooks. At most one auto-export per session. A session with nothing recorded is not exported. Billing decides as for a requested export: an organisation over its free tier without a subscription gets no auto-export (it is skipped, not queued for later). Changing or disabling the preset applies to recordings that become ready afterwards; it does not touch exports already queued.`;

/** What the auto-export routes need. */
export interface AutoExportRoutesOptions {
  autoExport: AutoExportService;
}

/** A project's auto-export preset: read and set. */
export const autoExportRoutes: FastifyPluginAsyncTypebox<AutoExportRoutesOptions> = async (app, deps) => {
  const { autoExport } = deps;
  const tags = ['Exports'];

  app.get(
    '/v1/projects/:projectId/auto-export',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getAutoExport',
        summary: "A project's auto-export preset",
        description: `The preset as last set; a project whose preset was never set answers \`{ enabled: false, options: {}, updated_at: null }\`. Every member of the organisation may read it; an API key reads its own project's only. 404 for a project outside the organisation (or, for an API key, another project). ${RULE}`,
        params: ProjectParams,
        response: { 200: okResponse("The project's auto-export preset.", AutoExport) },
      },
    },
    async (request) => ok(await autoExport.get(request.principal!, request.params.projectId)),
  );

  app.put(
    '/v1/projects/:projectId/auto-export',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'setAutoExport',
        summary: "Set a project's auto-export preset",
        description: `Replaces the preset: \`enabled\` and \`options\`, both required; \`options\` takes the fields of \`POST /v1/sessions/{sessionId}/exports\` (\`{}\` for the defaults: a 720p landscape grid MP4 with names, paused spans cut out; the preset keeps the options as given, and an export made with it fills in the defaults of the rest), except those of one session: \`focus\`, \`from_ts\` and \`to_ts\` are refused. A disabled preset keeps its options. Owners and admins, and API keys of the project, only: 403 for a member. 404 for a project outside the organisation (or, for an API key, another project). 400 naming the field (\`body.options.format\`…) for an unknown field, a value outside its choices, or \`body.options.focus\`, \`body.options.from_ts\` or \`body.options.to_ts\`; nothing is written then. ${RULE}`,
        params: ProjectParams,
        body: AutoExportBody,
        response: { 200: okResponse('The preset as set.', AutoExport) },
      },
    },
    async (request) => ok(await autoExport.set(request.principal!, request.params.projectId, request.body)),
  );
};
