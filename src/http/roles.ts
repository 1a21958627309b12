/** The roles of a member in an organization (SPEC.md): the access model is written in these words. */
export const ORG_ROLES = ['org_admin', 'me_officer', 'reporter', 'viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
