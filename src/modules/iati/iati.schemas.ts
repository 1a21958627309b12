import { Type } from '@sinclair/typebox';
import { Uuid, type DocumentedAnswer } from '../../http/schemas/schemas.js';

export const ActivitiesQuery = Type.Object({
  projectId: Type.Optional(Uuid('Only this project of the organization')),
});

/** The export, streamed: an `iati-activities` document (IATI 2.03). */
export const IatiActivitiesDocument: DocumentedAnswer = {
  description: 'An IATI 2.03 `iati-activities` document, one `iati-activity` per project',
  content: {
    'application/xml': Type.String({
      description: 'UTF-8; valid against iati-activities-schema.xsd of IATI-Schemas, branch version-2.03',
    }),
  },
};
