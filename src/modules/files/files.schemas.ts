import { Type } from '@sinclair/typebox';
import { FilePart, SINGLE_LINE, Timestamp, Uuid } from '../../http/schemas/schemas.js';

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
  { title: 'Attachment', description: 'A document attached to a project' },
);

export const TITLE_MAX_LENGTH = 200;

/** The multipart body of an upload, for the OpenAPI document: the route reads the parts itself. */
export const AttachmentUpload = Type.Object(
  {
    file: FilePart('PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV (decided from the bytes), 10 MiB at most'),
    title: Type.Optional(
      Type.String({ maxLength: TITLE_MAX_LENGTH, ...SINGLE_LINE, description: 'Defaults to the file name' }),
    ),
  },
  { title: 'AttachmentUpload' },
);
