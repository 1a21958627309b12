import {
  Type,
  type NumberOptions,
  type Static,
  type ObjectOptions,
  type StringOptions,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });
/** Dates leave the service as ISO 8601 UTC with milliseconds; the serializer formats Date objects. */
export const Timestamp = (options: { description?: string } = {}) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', ...options });
/**
 * Request text is one line unless its schema says `multiline: true` (src/http/schemas/validation.ts): one line
 * has no control character, several keep tabs and line breaks. One line is the default; saying it
 * publishes its pattern in the OpenAPI document.
 */
export const SINGLE_LINE = { singleLine: true } as const;
export const MULTILINE = { multiline: true } as const;
/** A required line of text (a name, a title, a label): at least one character that is not a space. */
export const Text = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, notBlank: true, ...SINGLE_LINE });
/** Required text of one or more lines (a comment, a reason): at least one character that is not a space. */
export const Paragraphs = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, notBlank: true, ...MULTILINE, description });
/** A calendar date, `YYYY-MM-DD`, checked to be a real date. */
export const DateOnly = (description = 'YYYY-MM-DD') => Type.String({ format: 'date', description });
export const Email = () => Type.String({ format: 'email', maxLength: 254 });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/**
 * A string or null, for write bodies: one JSON type list rather than `Nullable`'s union, so a bad value
 * gets one message instead of two (`must be a string`, `must be null`).
 */
export const NullableString = (options: StringOptions = {}) =>
  Type.Unsafe<string | null>({ ...options, type: ['string', 'null'] });
export const NullableNumber = (options: NumberOptions = {}) =>
  Type.Unsafe<number | null>({ ...options, type: ['number', 'null'] });

/** Request bodies reject properties they do not name (DECISIONS.md section 1). */
export const Body = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** Path parameters: every id is a UUID. */
export const Params = <K extends string>(...names: K[]) =>
  Type.Object(
    Object.fromEntries(names.map((name) => [name, Uuid()])) as { [P in K]: ReturnType<typeof Uuid> },
    { additionalProperties: false },
  );

/**
 * The schema with one example of it, for the OpenAPI document: on a body or an answer, @fastify/swagger
 * writes it as the media type's `example` (what Swagger UI shows and "Try it out" starts from). Validation
 * and serialization ignore it; the test of the examples (test/openapi-examples.test.ts) checks it against
 * the schema.
 */
export const withExample = <T extends TSchema>(schema: T, example: Static<T>): T => ({
  ...schema,
  examples: [example],
});

export const NoContent = Type.Null({ description: 'No content' });
export const MessageBody = Type.Object({ message: Type.String() }, { title: 'Message' });

/**
 * An answer no serializer reads (a file, a CSV export, a redirect), declared in a route's
 * `schema.answers` for the OpenAPI document only (src/http/documentation/openapi.ts).
 */
export interface DocumentedAnswer {
  description: string;
  /** The body by media type; none for a redirect. */
  content?: Readonly<Record<string, TSchema>>;
  /** Response headers, by their name under the document's `components.headers`. */
  headers?: readonly string[];
}

const Bytes = () => Type.String({ format: 'binary' });

/** A stored file sent as an attachment, in one of `types` (the type found in its bytes). */
export const FileDownload = (description: string, types: readonly string[]): DocumentedAnswer => ({
  description,
  content: Object.fromEntries(types.map((type) => [type, Bytes()])),
  headers: ['Content-Disposition'],
});

/** A CSV export sent as an attachment. */
export const CsvDownload = (description: string): DocumentedAnswer => ({
  description,
  content: { 'text/csv': Type.String({ description: 'UTF-8, a header row first' }) },
  headers: ['Content-Disposition'],
});

/** A redirect: where to, in `Location`. */
export const Redirect = (description: string, headers: readonly string[] = []): DocumentedAnswer => ({
  description,
  headers: ['Location', ...headers],
});

/** A file part of a multipart/form-data body. */
export const FilePart = (description: string) => Type.String({ format: 'binary', description });
