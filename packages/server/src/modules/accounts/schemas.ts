import { Type } from '@sinclair/typebox';
import { Email, RoleSchema } from '../../http/shared-schemas.js';

export const Password = Type.String({
  minLength: 8,
  maxLength: 256,
  description: '8 to 256 characters, never truncated',
});

export const Credentials = Type.Object(
  { email: Email, password: Password },
  { additionalProperties: false, title: 'RegisterRequest' },
);

/** Sign-in takes any password up to the maximum: a wrong guess is a 401, never a hint about the rules. */
export const LoginCredentials = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false, title: 'SignInRequest' },
);

export const RegisteredUser = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    org_id: Type.String(),
    role: RoleSchema,
    project_id: Type.String({ description: 'the project created with the account, named "Default"' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'RegisteredUser' },
);

export const SignedOut = Type.Object({ signed_out: Type.Boolean() }, { title: 'SignedOut' });
