/**
 * 32-bit hashing (MurmurHash3's mixing steps): fast in JavaScript with Math.imul, good
 * avalanche, and the same result in Node and in the browser.
 */

export function mix32(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's finalizer; returns an unsigned 32-bit integer. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a string's UTF-16 code units with a seed. */
export function hashString(text: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i++) h = mix32(h, text.charCodeAt(i));
  return fmix32(h ^ text.length);
}

/** The Hash algorithm's key: (source IP as four words, source port). */
export function hashSource(w0: number, w1: number, w2: number, w3: number, port: number): number {
  let h = mix32(0x5eed1e55, w0);
  h = mix32(h, w1);
  h = mix32(h, w2);
  h = mix32(h, w3);
  h = mix32(h, port);
  return fmix32(h ^ 20);
}
