import { expect, it } from 'vitest';
import { compareText, optionalText } from './text.js';

it('stores optional text trimmed, blank as null, and leaves unsent text undefined', () => {
  expect(optionalText('  Kisumu ')).toBe('Kisumu');
  expect(optionalText('   ')).toBeNull();
  expect(optionalText(null)).toBeNull();
  expect(optionalText(undefined)).toBeUndefined();
});

it('orders text by code unit with missing values last', () => {
  const values = ['b', null, 'B', 'a', undefined, 'a'];
  expect([...values].sort(compareText)).toEqual(['B', 'a', 'a', 'b', null, undefined]);
});
