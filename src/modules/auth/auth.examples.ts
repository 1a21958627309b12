import type { Static } from '@sinclair/typebox';
import { PEOPLE, TIMES } from '../../http/documentation/story.js';
import type { LoginBody, RegisterBody, TokenBody, TokenResponse, User } from './auth.schemas.js';

/** The OpenAPI document's examples of signing up and in (src/http/documentation/story.ts). */

const { admin } = PEOPLE;

export const REGISTRATION: Static<typeof RegisterBody> = {
  email: admin.email,
  password: admin.password,
  firstName: admin.firstName,
  lastName: admin.lastName,
};

export const USER: Static<typeof User> = {
  id: admin.id,
  email: admin.email,
  firstName: admin.firstName,
  lastName: admin.lastName,
  createdAt: TIMES.registered,
};

export const CREDENTIALS: Static<typeof LoginBody> = { email: admin.email, password: admin.password };

export const TOKEN_REQUEST: Static<typeof TokenBody> = CREDENTIALS;

export const TOKEN: Static<typeof TokenResponse> = {
  accessToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMTk0YTNjMC01ZTIxLTdiOGEtOWM0ZC0xZjJlM2E0YjVjMDEi' +
    'LCJvcmdhbml6YXRpb25JZCI6IjAxOTRhM2MxLTBhMTAtN2MzZC04ZTRmLTVhNmI3YzhkOWUwMSIsInJvbGUiOiJvcmdfYWRtaW4ifQ.' +
    'q3J8Xw0lZk2sVt9Rb5YcN1eH7uPaD4mF6gLi0oTzCxE',
  tokenType: 'Bearer',
  expiresIn: 604800,
};
