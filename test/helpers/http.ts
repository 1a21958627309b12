import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** BASE_URL and APP_URL of every test app unless a test sets its own. */
export const TEST_BASE_URL = 'http://api.test';
export const TEST_APP_URL = 'http://app.test';

export interface Caller {
  token: string;
}

export interface Call {
  status: number;
  body: any;
  headers: LightMyRequestResponse['headers'];
  response: LightMyRequestResponse;
}

/** One request through the real app; `as` signs it with a bearer token. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  options: { as?: Caller | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const response = await app.inject({
    method,
    url,
    headers: {
      ...(options.as ? { authorization: `Bearer ${options.as.token}` } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  });
  const text = response.body;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.statusCode, body, headers: response.headers, response };
}

/** The value of the `jwt` cookie a response set, if any. */
export function sessionCookie(call: Call): string | undefined {
  return call.response.cookies.find((c) => c.name === 'jwt')?.value;
}

export const FORBIDDEN = {
  statusCode: 403,
  message: 'You do not have permission to perform this action',
  error: 'Forbidden',
};
export const UNAUTHORIZED = { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' };
export const notFoundBody = (what: string) => ({
  statusCode: 404,
  message: `${what} not found`,
  error: 'Not Found',
});

/** ISO 8601 UTC with milliseconds, as every timestamp leaves the service. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

/** A 400 listing exactly these messages, in any order. */
export function expectViolations(res: Call, ...messages: string[]): void {
  expect(res.status).toBe(400);
  expect({ ...res.body, message: [...res.body.message].sort() }).toEqual(badRequest(...messages.sort()));
}

/** Status and the whole error body at once. */
export function expectError(res: Call, body: { statusCode: number; message: unknown; error: string }): void {
  expect([res.status, res.body]).toEqual([body.statusCode, body]);
}

/** A well-formed id that exists nowhere. */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';
