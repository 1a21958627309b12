/** Emails are compared trimmed and lower-cased everywhere (DECISIONS.md section 3). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
