import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationMs } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    [' 30m ', 1800],
    ['12h', 43_200],
    ['7d', 604_800],
  ])('reads %j as %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '0', '0s', '-5s', '1.5s', '250ms', '5w', 's', '99999999999999999d'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['250ms', 250],
    [' 1500 ms ', 1500],
    ['2s', 2000],
    ['2', 2000],
    ['1m', 60_000],
  ])('reads %j as %i milliseconds', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(['', '0ms', '0', '-1ms', '0.5s', '250 us', 'ms', '99999999999999999ms'])('refuses %j', (text) => {
    expect(parseDurationMs(text)).toBeNull();
  });
});
