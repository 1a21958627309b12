import { Type } from '@sinclair/typebox';
import { Body, Email, Nullable, Text, Timestamp, Uuid } from '../../http/schemas.js';
import { ORG_ROLES, type OrgRole } from './orgs.tables.js';

export const Role = () => Type.Unsafe<OrgRole>({ type: 'string', enum: [...ORG_ROLES] });
const OrgName = () => Text(200);
const OrgCode = () =>
  Type.String({
    pattern: '^[a-z0-9][a-z0-9-]{1,31}$',
    description:
      '2 to 32 lower-case letters, digits or dashes, not starting with a dash; unique across the service',
  });
const LogoUrl = () => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

export const Organization = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    code: Type.String(),
    logoUrl: Nullable(Type.String()),
    createdAt: Timestamp(),
  },
  { title: 'Organization' },
);

export const MyOrganization = Type.Object(
  { ...Organization.properties, role: Role() },
  { title: 'MyOrganization', description: 'An organization of the caller with the caller’s role in it' },
);

export const CreateOrganizationBody = Body(
  {
    name: OrgName(),
    code: OrgCode(),
    logoUrl: Type.Optional(LogoUrl()),
  },
  { title: 'OrganizationCreate' },
);
export const UpdateOrganizationBody = Body(
  {
    name: Type.Optional(OrgName()),
    code: Type.Optional(OrgCode()),
    logoUrl: Type.Optional(Nullable(LogoUrl())),
  },
  { title: 'OrganizationUpdate' },
);

export const Member = Type.Object(
  {
    userId: Uuid(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    role: Role(),
    joinedAt: Timestamp(),
  },
  { title: 'Member' },
);

export const RoleBody = Body({ role: Role() }, { title: 'MemberUpdate' });
export const InviteBody = Body({ email: Email(), role: Role() }, { title: 'InvitationCreate' });

export const Invitation = Type.Object(
  {
    id: Uuid(),
    email: Type.String(),
    role: Role(),
    status: Type.String({ enum: ['pending', 'expired'] }),
    expiresAt: Timestamp(),
    createdAt: Timestamp(),
  },
  { title: 'Invitation' },
);

export const InvitationLookup = Type.Object(
  {
    organizationName: Type.String(),
    email: Type.String(),
    role: Role(),
    expiresAt: Timestamp(),
  },
  { title: 'InvitationOffer', description: 'What an invitation link offers' },
);

export const AcceptedInvitation = Type.Object(
  { organization: Organization, role: Role() },
  { title: 'AcceptedInvitation' },
);

export const TokenParams = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
);
