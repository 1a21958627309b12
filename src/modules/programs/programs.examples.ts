import type { Static } from '@sinclair/typebox';
import { IDS, TIMES } from '../../http/documentation/story.js';
import type { CreateProgramBody, Program } from './programs.schemas.js';

/** The OpenAPI document's examples of the program (src/http/documentation/story.ts). */

const DESCRIPTION =
  'Safe water, sanitation and hygiene for 6,000 households in Kisumu and Siaya counties, with community ' +
  'water committees running what is built.';

export const PROGRAM_CREATE: Static<typeof CreateProgramBody> = {
  name: 'Safe Water for Western Kenya',
  description: DESCRIPTION,
  startDate: '2026-01-01',
  endDate: '2028-12-31',
  status: 'active',
  donorIds: [IDS.donor],
};

export const PROGRAM: Static<typeof Program> = {
  id: IDS.program,
  orgId: IDS.organization,
  name: 'Safe Water for Western Kenya',
  description: DESCRIPTION,
  startDate: '2026-01-01',
  endDate: '2028-12-31',
  status: 'active',
  createdAt: TIMES.programCreated,
  updatedAt: TIMES.programCreated,
  donors: [{ id: IDS.donor, name: 'Global Water Fund', code: 'GWF' }],
  projects: [],
};
