import { Signer, type UnsignResult } from '@fastify/cookie';

type Valid = Extract<UnsignResult, { valid: true }>;

/**
 * @fastify/cookie's signer (HMAC-SHA256), remembering its answers for the last session cookies.
 * Every request with a session checks the cookie's signature, and the session plugin signs the
 * id once more when it restores the session: two HMACs per request, pure functions of the secret
 * and the value, so an answer remembered is the answer that would be computed. Only good
 * signatures are remembered (a forged cookie is checked, with a timing-safe comparison, every
 * time, and cannot push the real ones out); past `limit` entries, everything is forgotten.
 */
export class RememberingSigner {
  readonly #signer: Signer;
  readonly #signed = new Map<string, string>();
  readonly #unsigned = new Map<string, Valid>();

  constructor(
    secret: string,
    private readonly limit = 1000,
  ) {
    this.#signer = new Signer(secret, 'sha256');
  }

  sign(value: string): string {
    let signed = this.#signed.get(value);
    if (signed === undefined) {
      signed = this.#signer.sign(value);
      if (this.#signed.size >= this.limit) this.#signed.clear();
      this.#signed.set(value, signed);
    }
    return signed;
  }

  unsign(signedValue: string): UnsignResult {
    const known = this.#unsigned.get(signedValue);
    if (known) return { ...known };
    const result = this.#signer.unsign(signedValue);
    if (result.valid) {
      if (this.#unsigned.size >= this.limit) this.#unsigned.clear();
      this.#unsigned.set(signedValue, { ...result });
    }
    return result;
  }
}
