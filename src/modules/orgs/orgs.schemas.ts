import { Type } from '@sinclair/typebox';
import { Body, Email, Nullable, NullableString, Text, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { AGE_BAND, HTTP_URL, IATI_IDENTIFIER, ORGANIZATION_CODE } from '../../lib/patterns.js';
import { IATI_ORGANISATION_TYPES, type IatiOrganisationType } from './iati-organisation-types.js';
import { LOCALES, type Locale } from '../../lib/i18n/i18n.js';
import { ORG_ROLES, type OrgRole } from './orgs.tables.js';

export const Role = () => Type.Unsafe<OrgRole>({ type: 'string', enum: [...ORG_ROLES] });
const OrgName = () => Text(200);
const OrgCode = () =>
  Type.String({
    pattern: ORGANIZATION_CODE.pattern,
    description:
      '2 to 32 lower-case letters, digits or dashes, starting with a letter or digit; unique across the ' +
      'service. (Donor and project codes are free abbreviations; indicator codes follow the formula rule.)',
  });
const LogoUrl = () => Type.String({ format: 'uri', pattern: HTTP_URL.pattern, maxLength: 2048 });
/**
 * An IATI organisation identifier: registration agency and number, e.g. `GB-CHC-1234567`, `XM-DAC-41114`.
 * IATI forbids spaces and `/ & | ?` in identifiers; real ones are letters, digits and `- _ . :`, which is
 * what is accepted (it also keeps the activity identifiers built from it clean).
 */
const IATI_REF = {
  pattern: IATI_IDENTIFIER.pattern,
  minLength: 2,
  maxLength: 100,
  description:
    'IATI organisation identifier (registration agency and number, e.g. `GB-CHC-1234567`): letters, ' +
    'digits and `- _ . :`, starting and ending with a letter or digit, 2 to 100 characters. Null: not published.',
};
const IATI_ORG_TYPE = {
  type: 'string',
  enum: Object.keys(IATI_ORGANISATION_TYPES),
  description:
    'IATI OrganisationType code (default 21): ' +
    Object.entries(IATI_ORGANISATION_TYPES)
      .map(([code, name]) => `${code} ${name}`)
      .join(', '),
};
const IatiOrgType = () => Type.Unsafe<IatiOrganisationType>(IATI_ORG_TYPE);
const REMINDER_DAYS_BEFORE =
  "Days before a reporting period's due date on which its reporters and M&E officers are emailed what is " +
  'still missing, in draft or rejected (default `[7, 1]`); sorted from the most days to the fewest. ' +
  '`[]`: no reminders before the due date.';
const OVERDUE_REMINDER =
  'Whether they are also reminded the day after the due date of what is still outstanding (default true).';
const SEPARATE_APPROVAL =
  'Four eyes (default false): when true, the person who last submitted an indicator report may not approve ' +
  'or reject it (403 `separate_approval_required`); another M&E officer or org admin reviews it.';
const SHOW_QUALITY_NOTES =
  'Whether its shared report pages show data quality notes (default false): the outlier and validation ' +
  'flags of the values they include and the justifications given for them. Members see flags whatever it is.';
const AGE_BANDS_TEXT =
  "The organization's age bands, youngest first, ending with `unknown` (people whose age is not known, " +
  'always added): the `ageBand` given for participants and household members, kept at erasure, and the ' +
  'age breakdown of a pre-fill of an indicator without disaggregations. Default: the contract’s ' +
  '`0-17, 18-35, 36-59, 60+, unknown`.';
const AgeBandsInput = () =>
  Nullable(
    Type.Array(Type.String({ minLength: 1, maxLength: 10, pattern: AGE_BAND.pattern }), {
      minItems: 1,
      maxItems: 20,
      description:
        `${AGE_BANDS_TEXT} Set: labels \`a-b\` or \`a+\` from the youngest, the first starting at 0, each ` +
        'starting the year after the previous one ends (no overlap, no age left out), the last open-ended ' +
        '(like `60+`); `unknown` may close the list and is added when it does not. null: back to the default.',
      examples: [['0-4', '5-17', '18-59', '60+']],
    }),
  );
const ReminderDaysBefore = () =>
  Type.Array(Type.Integer({ minimum: 1, maximum: 90 }), {
    uniqueItems: true,
    maxItems: 10,
    description: `${REMINDER_DAYS_BEFORE} Up to 10 different whole numbers of days from 1 to 90, in any order.`,
  });

const DEFAULT_LOCALE_TEXT =
  'The language of its shared report pages when the browser asks for none of ours, and of its emails ' +
  'to users who chose no language: en (English, the default), fr (French), es (Spanish), pt ' +
  '(Portuguese) or ar (Arabic).';
const DefaultLocale = () =>
  Type.Unsafe<Locale>({ type: 'string', enum: [...LOCALES], description: DEFAULT_LOCALE_TEXT });

export const Organization = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    code: Type.String(),
    logoUrl: Nullable(Type.String()),
    iatiRef: Nullable(Type.String({ description: IATI_REF.description })),
    iatiOrgType: Type.Unsafe<string>(IATI_ORG_TYPE),
    reminderDaysBefore: Type.Array(Type.Integer(), { description: REMINDER_DAYS_BEFORE }),
    overdueReminder: Type.Boolean({ description: OVERDUE_REMINDER }),
    separateApproval: Type.Boolean({ description: SEPARATE_APPROVAL }),
    showQualityNotes: Type.Boolean({ description: SHOW_QUALITY_NOTES }),
    ageBands: Type.Array(Type.String(), { description: AGE_BANDS_TEXT }),
    defaultLocale: DefaultLocale(),
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
    iatiRef: Type.Optional(Type.String(IATI_REF)),
    iatiOrgType: Type.Optional(IatiOrgType()),
  },
  { title: 'OrganizationCreate' },
);
export const UpdateOrganizationBody = Body(
  {
    name: Type.Optional(OrgName()),
    code: Type.Optional(OrgCode()),
    logoUrl: Type.Optional(Nullable(LogoUrl())),
    iatiRef: Type.Optional(NullableString(IATI_REF)),
    iatiOrgType: Type.Optional(IatiOrgType()),
    reminderDaysBefore: Type.Optional(ReminderDaysBefore()),
    overdueReminder: Type.Optional(Type.Boolean({ description: OVERDUE_REMINDER })),
    separateApproval: Type.Optional(Type.Boolean({ description: SEPARATE_APPROVAL })),
    showQualityNotes: Type.Optional(Type.Boolean({ description: SHOW_QUALITY_NOTES })),
    ageBands: Type.Optional(AgeBandsInput()),
    defaultLocale: Type.Optional(DefaultLocale()),
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
