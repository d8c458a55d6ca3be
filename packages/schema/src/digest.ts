import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import canonicalizeModule from 'canonicalize';
import type { Configuration } from './configuration.ts';
import { deriveConfiguration, documentConfigShape, underiveConfiguration } from './derive.ts';
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

/**
 * A stored document as this release reads it. A revision saved before a field with a default
 * existed (the SCTP reject option, issue 27) lacks that field: its configuration is read through
 * the schema, which fills the defaults in, and when that changed anything its digest is computed
 * again, for an agent checks the digest of the configuration as it reads it. A document the
 * schema refuses is left as it is (the agent's check says why).
 */
export function readStoredDocument(stored: ConfigDocument): ConfigDocument {
  const parsed = documentConfigShape.safeParse(stored.config);
  if (!parsed.success || isDeepStrictEqual(parsed.data, stored.config)) return stored;
  return buildDocument(stored.revision, underiveConfiguration(parsed.data));
}
