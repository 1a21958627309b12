import { createHash } from 'node:crypto';

/**
 * The ETag of a representation: a hash of the JSON as serialized, before any content coding. A hash of
 * what is sent is a version of exactly that: it changes with joined data an `updatedAt` misses (a
 * project's program name, an indicator's disaggregations, a participant's age), and two callers who
 * read different representations (a viewer without personal data, an admin with it) get different
 * ones. 128 bits of SHA-256: collisions are out of reach, the header stays short.
 */
export function etagOf(json: string | Buffer): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 22)}"`;
}

interface EntityTag {
  weak: boolean;
  /** With its quotes, as a strong ETag is written. */
  tag: string;
}

const ETAGC = '[\\x21\\x23-\\x7e\\x80-\\xff]*';
const ONE_TAG = new RegExp(`(W/)?("${ETAGC}")`, 'g');
/** A list of entity tags (RFC 9110 section 8.8.3): empty elements allowed, nothing else between tags. */
const TAG_LIST = new RegExp(`^[\\s,]*(?:(?:W/)?"${ETAGC}"\\s*(?:,[\\s,]*|$))*$`);

/** `*`, or the entity tags of an If-Match or If-None-Match field; null when it is not one. */
function parseEntityTags(field: string): '*' | EntityTag[] | null {
  if (field.trim() === '*') return '*';
  if (!TAG_LIST.test(field)) return null;
  return [...field.matchAll(ONE_TAG)].map((match) => ({ weak: match[1] !== undefined, tag: match[2]! }));
}

/** Whether a field is `*` or a list of entity tags (quoted, optionally `W/`). */
export const isEntityTagList = (field: string) => parseEntityTags(field) !== null;

/**
 * If-Match (RFC 9110 section 13.1.1): `*` holds when the resource exists; a list holds when one of its
 * tags equals the current ETag by strong comparison (a weak tag never does). A field that is no list of
 * entity tags holds for nothing: a client that meant a condition must not get an unconditional write.
 */
export function ifMatchHolds(field: string, current: string | null): boolean {
  const tags = parseEntityTags(field);
  if (current === null || tags === null) return false;
  return tags === '*' || tags.some((t) => !t.weak && t.tag === current);
}

/**
 * If-None-Match on a read (RFC 9110 section 13.1.2): true when the client already has the current
 * representation: `*`, or one of the tags equal to the current ETag by weak comparison.
 */
export function ifNoneMatchHits(field: string, current: string): boolean {
  const tags = parseEntityTags(field);
  if (tags === null) return false;
  return tags === '*' || tags.some((t) => t.tag === current);
}
