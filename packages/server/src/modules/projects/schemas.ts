import { Type } from '@sinclair/typebox';
import { Nullable, NullableStringEnum } from '../../http/schema-types.js';
import { MAX_EMBED_ORIGINS } from './embed-origins.js';

export const Environment = NullableStringEnum(['development', 'staging', 'production'], {
  description: '`development`, `staging`, `production`, or null when not set',
});

export const ProjectName = Type.String({ minLength: 1, maxLength: 200, description: '1 to 200 characters' });

export const Project = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    org_id: Type.String(),
    environment: Nullable(Type.String()),
    embed_origins: Type.Array(Type.String(), {
      description: 'the origins allowed to frame the prebuilt room `/embed/{projectId}` (none: no site may)',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Project' },
);

export const CreateProject = Type.Object(
  { name: ProjectName, environment: Type.Optional(Environment) },
  { additionalProperties: false, title: 'CreateProjectRequest' },
);

export const EmbedOrigins = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: MAX_EMBED_ORIGINS,
  description: `The sites allowed to frame this project's prebuilt room (\`/embed/{projectId}\`), as its \`Content-Security-Policy: frame-ancestors\`: at most ${MAX_EMBED_ORIGINS} exact origins, \`https://host[:port]\`, or \`http://\` for localhost, 127.0.0.1 and [::1]; no path, query, fragment, wildcard or trailing slash. Replaces the list; \`[]\` lets no site frame it (the default). Every other page of the server may never be framed.`,
});

export const UpdateProject = Type.Object(
  {
    name: Type.Optional(ProjectName),
    environment: Type.Optional(Environment),
    embed_origins: Type.Optional(EmbedOrigins),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateProjectRequest' },
);
