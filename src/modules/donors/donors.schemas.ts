import { Type, type Static, type TString } from '@sinclair/typebox';
import {
  Body,
  Email,
  MULTILINE,
  Nullable,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { HTTP_URL } from '../../lib/patterns.js';
import { DONOR_TYPES } from './donors.tables.js';

export type DonorType = (typeof DONOR_TYPES)[number];

export const DonorTypeSchema = () =>
  Type.Unsafe<DonorType>({ type: 'string', enum: [...DONOR_TYPES], description: 'Kind of funder' });

/**
 * A string field a PATCH may clear with null. One schema with `type: [string, null]` rather than a union,
 * so a bad value gets one message (`country must be a string`), not one per branch.
 */
const Clearable = (schema: TString) =>
  Type.Unsafe<Static<TString> | null>({ ...schema, type: ['string', 'null'] });

const Name = () => Text(200);
const Code = () =>
  Type.String({
    minLength: 1,
    maxLength: 32,
    notBlank: true,
    ...SINGLE_LINE,
    description:
      'Short abbreviation (e.g. USAID), 1 to 32 characters; unique in the organization ignoring case',
  });
const Country = () => Text(100);
const Website = () =>
  Type.String({ format: 'uri', pattern: HTTP_URL.pattern, maxLength: 2048, description: 'An http(s) URL' });
const ContactName = () => Text(200);
const ContactEmail = () => Email();
const Notes = () => Type.String({ maxLength: 10_000, ...MULTILINE, description: 'Internal notes' });

export const Donor = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    name: Type.String(),
    code: Type.String(),
    type: DonorTypeSchema(),
    country: Nullable(Type.String()),
    website: Nullable(Type.String()),
    contactName: Nullable(Type.String()),
    contactEmail: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    title: 'Donor',
    description: 'A funder in the organization’s donor registry; unset optional fields are null',
  },
);

export const CreateDonorBody = Body(
  {
    name: Name(),
    code: Code(),
    type: DonorTypeSchema(),
    country: Type.Optional(Clearable(Country())),
    website: Type.Optional(Clearable(Website())),
    contactName: Type.Optional(Clearable(ContactName())),
    contactEmail: Type.Optional(Clearable(ContactEmail())),
    notes: Type.Optional(Clearable(Notes())),
  },
  { title: 'DonorCreate' },
);

export const UpdateDonorBody = Body(
  {
    name: Type.Optional(Name()),
    code: Type.Optional(Code()),
    type: Type.Optional(DonorTypeSchema()),
    country: Type.Optional(Clearable(Country())),
    website: Type.Optional(Clearable(Website())),
    contactName: Type.Optional(Clearable(ContactName())),
    contactEmail: Type.Optional(Clearable(ContactEmail())),
    notes: Type.Optional(Clearable(Notes())),
  },
  { title: 'DonorUpdate' },
);
