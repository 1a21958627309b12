import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  blindIndex,
  open,
  seal,
  sealedUnderPrevious,
  sealingKey,
  SealedValueError,
  type Keyring,
} from './sealed-values.js';

const newKey = () => sealingKey(randomBytes(32).toString('base64'));

describe('sealed values', () => {
  it('open what they sealed, and hold neither the value nor the key in clear', () => {
    const key = newKey();
    const keyring: Keyring = { current: key };
    for (const value of ['CM-1234567', '+237 6 99 00 11 22', '', 'Ñandú 😀 ☃', 'x'.repeat(5000)]) {
      const sealed = seal(keyring, value);
      expect(sealed).toMatch(/^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(sealed.split('.')[1]).toBe(key.id);
      if (value.length > 0)
        expect(sealed).not.toContain(Buffer.from(value).toString('base64url').slice(0, 8));
      expect(sealed).not.toContain(key.secret.toString('base64url'));
      expect(open(keyring, sealed)).toBe(value);
    }
  });

  it('use a new nonce for every value: the same value never seals the same way twice', () => {
    const keyring: Keyring = { current: newKey() };
    const sealed = new Set(Array.from({ length: 1000 }, () => seal(keyring, 'CM-1234567')));
    expect(sealed.size).toBe(1000);
  });

  it('refuse an altered value, one moved under another key id, and text that is no sealed value', () => {
    const keyring: Keyring = { current: newKey() };
    const sealed = seal(keyring, 'CM-1234567');
    const [version, id, nonce, body] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => open(keyring, [version, id, nonce, flipped.toString('base64url')].join('.'))).toThrow(
      SealedValueError,
    );
    const other = newKey();
    const moved = [version, other.id, nonce, body].join('.');
    expect(() => open({ current: keyring.current, previous: other }, moved)).toThrow(
      /does not open under key/,
    );
    for (const text of [
      'CM-1234567',
      'v2.a.b.c',
      'v1.a.b',
      `v1.${id}.${nonce}.${body}.extra`,
      `v1.${id}.AAAA.${body}`,
    ]) {
      expect(() => open(keyring, text)).toThrow(SealedValueError);
    }
  });

  it('open values of the previous key during a rotation, and say which still need sealing again', () => {
    const before = newKey();
    const after = newKey();
    const old = seal({ current: before }, '+237 699001122');
    const rotating: Keyring = { current: after, previous: before };
    expect(open(rotating, old)).toBe('+237 699001122');
    expect(sealedUnderPrevious(rotating, old)).toBe(true);
    const again = seal(rotating, open(rotating, old));
    expect(sealedUnderPrevious(rotating, again)).toBe(false);
    expect(open({ current: after }, again)).toBe('+237 699001122');
    // Once the previous key is gone, what was not sealed again is refused by name.
    expect(() => open({ current: after }, old)).toThrow(`sealed under key ${before.id}`);
  });

  it('take a key only as 32 bytes of base64, naming the setting otherwise', () => {
    expect(sealingKey(Buffer.alloc(32, 7).toString('base64')).id).toBe(
      sealingKey(Buffer.alloc(32, 7).toString('base64')).id,
    );
    for (const bad of [
      '',
      'secret',
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      '%%%%',
    ]) {
      expect(() => sealingKey(bad)).toThrow('PII_KEY must be 32 bytes written in base64');
    }
    expect(() => sealingKey('short', 'PII_KEY_PREVIOUS')).toThrow(/^PII_KEY_PREVIOUS must be/);
  });

  it('index equal values equally under one key, differently under another, without the value in it', () => {
    const key = newKey();
    expect(blindIndex(key, 'CM-1234567')).toBe(blindIndex(key, 'CM-1234567'));
    expect(blindIndex(key, 'CM-1234567')).not.toBe(blindIndex(key, 'CM-1234568'));
    expect(blindIndex(newKey(), 'CM-1234567')).not.toBe(blindIndex(key, 'CM-1234567'));
    expect(blindIndex(key, 'CM-1234567')).toMatch(/^[0-9a-f]{64}$/);
  });
});
