/**
 * A typed client of the MEL service: `openapi-fetch` over the types generated from the service's
 * OpenAPI document (`npm run client:generate` in the service repository).
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export type * from './types.js';

/** One of the stable error codes every error body carries (`code`). */
export type ErrorCode = components['schemas']['Error']['code'];

export interface MelClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's base URL, e.g. `https://mel.example.org`. */
  baseUrl: string;
  /** A bearer token (from `POST /auth/token`), or a function that returns the current one. */
  token?: string | (() => string | undefined);
}

export type MelClient = Client<paths>;

/** A client whose every request carries the bearer token when one is set. */
export function createMelClient({ token, ...options }: MelClientOptions): MelClient {
  const client = createClient<paths>(options);
  const bearer: Middleware = {
    onRequest({ request }) {
      const current = typeof token === 'function' ? token() : token;
      if (current && !request.headers.has('authorization')) {
        request.headers.set('authorization', `Bearer ${current}`);
      }
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** A fresh `Idempotency-Key`: send the same one again when retrying the same request. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
