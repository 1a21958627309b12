import type { Static } from '@sinclair/typebox';
import { IDS, TIMES } from '../../http/documentation/story.js';
import type { CreateOrganizationBody, Organization } from './orgs.schemas.js';

/** The OpenAPI document's examples of the organization (src/http/documentation/story.ts). */

export const ORGANIZATION_CREATE: Static<typeof CreateOrganizationBody> = {
  name: 'Maji Safi Kenya',
  code: 'maji-safi-kenya',
  logoUrl: 'https://majisafi.example.org/logo.png',
  iatiOrgType: '22',
};

export const ORGANIZATION: Static<typeof Organization> = {
  id: IDS.organization,
  name: 'Maji Safi Kenya',
  code: 'maji-safi-kenya',
  logoUrl: 'https://majisafi.example.org/logo.png',
  iatiRef: null,
  iatiOrgType: '22',
  reminderDaysBefore: [7, 1],
  overdueReminder: true,
  separateApproval: false,
  showQualityNotes: false,
  ageBands: ['0-17', '18-35', '36-59', '60+', 'unknown'],
  defaultLocale: 'en',
  createdAt: TIMES.organizationCreated,
};
