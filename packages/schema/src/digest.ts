import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { Configuration } from './configuration.ts';
import { deriveConfiguration } from './derive.ts';
import { DOCUMENT_FORMAT_VERSION, type ConfigDocument } from './document.ts';

// The package is CommonJS (module.exports = fn) but its typings declare a default export.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** RFC 8785 canonical JSON: sorted keys, no white space, one spelling per number. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The config document of a configuration at a revision: derived fields filled in, digest computed. */
export function buildDocument(revision: number, config: Configuration): ConfigDocument {
  const derived = deriveConfiguration(config);
  return {
    formatVersion: DOCUMENT_FORMAT_VERSION,
    revision,
    sha256: digestOf(derived),
    config: derived,
  };
}
