import { expect, it } from 'vitest';
import { formatByteSize, parseByteSize } from './byte-size.js';

it('reads plain bytes and the binary units, in any case and with or without a space', () => {
  expect(parseByteSize('1073741824')).toBe(2 ** 30);
  expect(parseByteSize('512B')).toBe(512);
  expect(parseByteSize('10KiB')).toBe(10 * 1024);
  expect(parseByteSize('500 MiB')).toBe(500 * 2 ** 20);
  expect(parseByteSize('1GiB')).toBe(2 ** 30);
  expect(parseByteSize(' 10gib ')).toBe(10 * 2 ** 30);
  expect(parseByteSize('2TiB')).toBe(2 * 2 ** 40);
});

it('takes a fraction of a unit, rounded down to whole bytes', () => {
  expect(parseByteSize('1.5MiB')).toBe(1.5 * 2 ** 20);
  expect(parseByteSize('0.5KiB')).toBe(512);
  expect(parseByteSize('1.0001KiB')).toBe(1024);
});

it('refuses decimal units, unknown units, signs, nothing and sizes under one byte or past 2^53', () => {
  for (const text of [
    '1GB',
    '1MB',
    '1kb',
    '1 G',
    'GiB',
    '',
    ' ',
    '-1GiB',
    '+1',
    '1e9',
    '0',
    '0B',
    '0.4B',
    '1..5MiB',
    '9999999TiB',
  ]) {
    expect(parseByteSize(text), text).toBeNull();
  }
});

it('writes a size in the largest unit it reaches', () => {
  expect(formatByteSize(2 ** 30)).toBe('1 GiB');
  expect(formatByteSize(10 * 2 ** 30)).toBe('10 GiB');
  expect(formatByteSize(10 * 1024)).toBe('10 KiB');
  expect(formatByteSize(1.5 * 2 ** 20)).toBe('1.5 MiB');
  expect(formatByteSize(1000)).toBe('1000 B');
  expect(formatByteSize(3 * 2 ** 40)).toBe('3 TiB');
});
