import { Signer } from '@fastify/cookie';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RememberingSigner } from '../src/http/remembering-signer.ts';

const SECRET = 'test-session-secret-of-at-least-32-characters';

afterEach(() => vi.restoreAllMocks());

describe('RememberingSigner', () => {
  it('computes the HMACs of a session cookie once', () => {
    const sign = vi.spyOn(Signer.prototype, 'sign');
    const unsign = vi.spyOn(Signer.prototype, 'unsign');
    const remembering = new RememberingSigner(SECRET);
    const signed = remembering.sign('session-id-1');
    for (let i = 0; i < 5; i++) {
      expect(remembering.sign('session-id-1')).toBe(signed);
      expect(remembering.unsign(signed).valid).toBe(true);
    }
    expect(sign).toHaveBeenCalledTimes(1);
    expect(unsign).toHaveBeenCalledTimes(1);
    // A forged cookie is checked every time.
    for (let i = 0; i < 3; i++) expect(remembering.unsign(`${signed}x`).valid).toBe(false);
    expect(unsign).toHaveBeenCalledTimes(4);
  });

  it("answers what @fastify/cookie's signer answers, first time and remembered", () => {
    const plain = new Signer(SECRET, 'sha256');
    const remembering = new RememberingSigner(SECRET);
    for (let round = 0; round < 3; round++) {
      for (const id of ['a', 'session-id-1', 'ü.ñ.', '']) {
        const signed = remembering.sign(id);
        expect(signed).toBe(plain.sign(id));
        expect(remembering.unsign(signed)).toEqual(plain.unsign(signed));
        expect(remembering.unsign(signed)).toEqual({ valid: true, renew: false, value: id });
      }
    }
  });

  it('refuses every forged or altered cookie, also after the real one was remembered', () => {
    const remembering = new RememberingSigner(SECRET);
    const signed = remembering.sign('session-id-1');
    expect(remembering.unsign(signed).valid).toBe(true);
    const dot = signed.lastIndexOf('.');
    const forged = [
      `${signed.slice(0, dot)}.${'A'.repeat(signed.length - dot - 1)}`,
      `session-id-2${signed.slice(dot)}`, // another id under the first one's signature
      new RememberingSigner('another-secret-of-at-least-32-characters!').sign('session-id-1'),
      signed.slice(0, -1),
      `${signed}x`,
      'no-signature',
      '',
    ];
    for (let round = 0; round < 2; round++) {
      for (const cookie of forged) {
        expect(remembering.unsign(cookie), cookie).toEqual({
          valid: false,
          renew: false,
          value: null,
        });
      }
    }
    expect(remembering.unsign(signed).valid).toBe(true);
  });

  it('hands out answers of its own: changing one does not change the next', () => {
    const remembering = new RememberingSigner(SECRET);
    const signed = remembering.sign('session-id-1');
    const first = remembering.unsign(signed) as { valid: boolean; value: string | null };
    first.valid = false;
    first.value = 'admin';
    expect(remembering.unsign(signed)).toEqual({
      valid: true,
      renew: false,
      value: 'session-id-1',
    });
  });

  it('stays within its limit and still answers right past it', () => {
    const plain = new Signer(SECRET, 'sha256');
    const remembering = new RememberingSigner(SECRET, 4);
    const ids = Array.from({ length: 10 }, (_, i) => `id-${i}`);
    for (let round = 0; round < 2; round++) {
      for (const id of ids) {
        const signed = remembering.sign(id);
        expect(signed).toBe(plain.sign(id));
        expect(remembering.unsign(signed)).toEqual({ valid: true, renew: false, value: id });
      }
    }
  });
});
