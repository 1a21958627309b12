/**
 * The IATI OrganisationType code list (IATI-Codelists-NonEmbedded, `OrganisationType`, as used by the
 * 2.03 standard): what an organization may declare itself as when it publishes to IATI. The code is what
 * `reporting-org/@type` and `participating-org/@type` carry.
 */
export const IATI_ORGANISATION_TYPES = {
  '10': 'Government',
  '11': 'Local Government',
  '15': 'Other Public Sector',
  '21': 'International NGO',
  '22': 'National NGO',
  '23': 'Regional NGO',
  '24': 'Partner Country based NGO',
  '30': 'Public Private Partnership',
  '40': 'Multilateral',
  '60': 'Foundation',
  '70': 'Private Sector',
  '71': 'Private Sector in Provider Country',
  '72': 'Private Sector in Aid Recipient Country',
  '73': 'Private Sector in Third Country',
  '80': 'Academic, Training and Research',
  '90': 'Other',
} as const;

export type IatiOrganisationType = keyof typeof IATI_ORGANISATION_TYPES;

export const IATI_ORGANISATION_TYPE_CODES = Object.keys(IATI_ORGANISATION_TYPES) as IatiOrganisationType[];

/** What a new organization is until it says otherwise (the column's default too). */
export const DEFAULT_IATI_ORGANISATION_TYPE: IatiOrganisationType = '21';
