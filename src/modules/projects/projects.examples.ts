import type { Static } from '@sinclair/typebox';
import { IDS, PEOPLE, TIMES } from '../../http/documentation/story.js';
import type { CreateProjectBody, Project } from './projects.schemas.js';

/** The OpenAPI document's examples of the project (src/http/documentation/story.ts). */

const fields = {
  name: 'Kisumu County WASH',
  code: 'KSM-WASH-01',
  description:
    'Rehabilitation of 24 community boreholes, training of their water committees and hygiene promotion ' +
    'in Nyakach and Nyando sub-counties.',
  budget: 450000,
  currency: 'USD',
  startDate: '2026-01-01',
  endDate: '2027-06-30',
  status: 'active',
  location: 'Kisumu County, Kenya',
  lead: `${PEOPLE.officer.firstName} ${PEOPLE.officer.lastName}`,
} as const;

export const PROJECT_CREATE: Static<typeof CreateProjectBody> = fields;

export const PROJECT: Static<typeof Project> = {
  id: IDS.project,
  orgId: IDS.organization,
  programId: IDS.program,
  ...fields,
  createdAt: TIMES.projectCreated,
  updatedAt: TIMES.projectCreated,
};
