import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';

export const Attachment = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    title: Type.String(),
    fileName: Type.String({ description: 'The uploaded name, without directories or control characters' }),
    contentType: Type.String({ description: 'The type found in the bytes, not the one the client declared' }),
    size: Type.Integer({ description: 'Bytes' }),
    createdAt: Timestamp(),
    downloadUrl: Type.String({ description: 'Path of the download route, relative to the API base URL' }),
  },
  { description: 'A document attached to a project' },
);

export const TITLE_MAX_LENGTH = 200;
