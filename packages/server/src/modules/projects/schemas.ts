import { Type } from '@sinclair/typebox';
import { Nullable, NullableStringEnum } from '../../http/schema-types.js';

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
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Project' },
);

export const CreateProject = Type.Object(
  { name: ProjectName, environment: Type.Optional(Environment) },
  { additionalProperties: false, title: 'CreateProjectRequest' },
);

export const UpdateProject = Type.Object(
  { name: Type.Optional(ProjectName), environment: Type.Optional(Environment) },
  { additionalProperties: false, minProperties: 1, title: 'UpdateProjectRequest' },
);
