import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';
import { Email } from '../../http/shared-schemas.js';

const Timestamp = Type.String({ format: 'date-time' });

export const InviteRole = StringEnum(['admin', 'member']);

export const Invitation = Type.Object(
  {
    id: Type.String(),
    org_id: Type.String(),
    email: Type.String(),
    role: Type.String(),
    created_by: Type.String({ description: 'the inviting user id, or "api_key"' }),
    created_at: Timestamp,
    expires_at: Timestamp,
    accepted_at: Nullable(Timestamp),
  },
  { title: 'Invitation' },
);

export const CreatedInvitation = Type.Object(
  {
    ...Invitation.properties,
    token: Type.String({ description: 'shown once; the invitee redeems it' }),
    accept_url: Type.String({ description: '{base_url}/invite?token=…, for the caller to deliver' }),
  },
  { title: 'CreatedInvitation' },
);

export const CreateInvitation = Type.Object(
  { email: Email, role: InviteRole },
  { additionalProperties: false, title: 'CreateInvitationRequest' },
);
export const Redeem = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false, title: 'RedeemInvitationRequest' },
);
export const Membership = Type.Object(
  { user_id: Type.String(), org_id: Type.String(), role: Type.String() },
  { title: 'Membership' },
);
export const InvitationParams = Type.Object({ invitationId: Type.String({ format: 'uuid' }) });

export const InvitationLookupQuery = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the invitation link' }) },
  { additionalProperties: false },
);
export const InvitationDescription = Type.Object(
  {
    organisation: Type.Object(
      {
        id: Type.String(),
        name: Type.String({ description: 'the organisation as its members see it named' }),
      },
      { description: 'the organisation the invitation is into' },
    ),
    role: StringEnum(['admin', 'member'], { description: 'the role the invitee gets' }),
    email: Type.String({ description: 'the address invited: the account that redeems must have it' }),
    invited_by: Nullable(Type.Object({ email: Type.String({ description: "the inviting user's email" }) }), {
      description: 'who invited; null when an API key did, or the inviting user is gone',
    }),
    expires_at: Timestamp,
  },
  { title: 'InvitationDescription' },
);
