import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { FEED_EVENT_TYPES } from './feed.service.js';

export const FeedEntry = Type.Object(
  {
    id: Uuid(),
    type: Type.String({ enum: [...FEED_EVENT_TYPES] }),
    occurredAt: Timestamp(),
    actor: Nullable(Type.Object({ id: Uuid(), name: Type.String() })),
    projectId: Nullable(Uuid()),
    subject: Type.Object({ type: Type.String(), id: Uuid(), label: Type.String() }),
    summary: Type.String(),
  },
  { title: 'FeedEntry' },
);
