import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import { Nullable, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { AUDIT_ACTIONS, SUBJECT_KINDS } from './privacy.tables.js';

export const AuditEntry = Type.Object(
  {
    id: Type.Integer({ description: 'In the order entries were written' }),
    at: Timestamp(),
    actorId: Nullable(Uuid('null when the service itself acted (retention, key rotation)')),
    actorRole: Nullable(Type.String()),
    tokenId: Nullable(Uuid('The personal access token the actor used; null for a session (or the service)')),
    tokenName: Nullable(Type.String({ description: 'That token’s name when it was used' })),
    ip: Nullable(Type.String()),
    requestId: Nullable(Type.String()),
    action: Type.String({ enum: [...AUDIT_ACTIONS] }),
    route: Type.String({ description: '`METHOD /route/pattern`, or the job that acted' }),
    subjectKind: Type.String({ enum: [...SUBJECT_KINDS] }),
    subjectIds: Type.Array(Uuid(), {
      description: 'The people or submissions concerned; empty for a whole export',
    }),
    count: Type.Integer({ description: 'How many records the response or change concerned' }),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The filter of a list or export; the reason of an erasure; the counts of an import',
    }),
  },
  { title: 'AuditEntry', description: 'One access to, or change of, personal data' },
);

const Instant = (description: string) => Type.String({ format: 'date-time', description });

export const AuditQuery = Type.Object({
  actorId: Type.Optional(Uuid('Entries of this user')),
  subjectId: Type.Optional(Uuid('Entries about this participant, household member or submission')),
  from: Type.Optional(Instant('Entries at or after this instant')),
  to: Type.Optional(Instant('Entries at or before this instant')),
  ...PageQuery,
});
