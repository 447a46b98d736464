import { Type } from '@sinclair/typebox';

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'compared case-insensitively' });
export const Password = Type.String({ minLength: 8, maxLength: 256, description: '8 to 256 characters, never truncated' });
export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);

export const Credentials = Type.Object({ email: Email, password: Password }, { additionalProperties: false });

export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    org_id: Type.String(),
    role: RoleSchema,
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'User' },
);

export const RegisteredUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  org_id: Type.String(),
  role: RoleSchema,
  project_id: Type.String({ description: 'the project created with the account, named "Default"' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const SignedOut = Type.Object({ signed_out: Type.Boolean() });
