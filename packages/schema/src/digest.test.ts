import { describe, expect, it } from 'vitest';
import { emptyConfiguration } from './configuration.ts';
import { buildDocument, digestOf, readStoredDocument } from './digest.ts';
import { configDocumentSchema } from './document.ts';

describe('readStoredDocument', () => {
  it('leaves a document of this release as it is stored', () => {
    const stored = buildDocument(4, emptyConfiguration());
    expect(readStoredDocument(stored)).toBe(stored);
  });

  it('reads one saved before an option existed with its default, and a digest that matches', () => {
    const current = buildDocument(4, emptyConfiguration());
    const { sctpRejectOption, accounting, ...older } = current.config.options;
    void [sctpRejectOption, accounting];
    const config = { ...current.config, options: older } as typeof current.config;
    const stored = { ...current, sha256: digestOf(config), config };
    const read = readStoredDocument(stored);
    expect(read.config.options).toMatchObject({ sctpRejectOption: 'drop', accounting: true });
    expect(read.revision).toBe(4);
    // What an agent checks: the digest of the configuration as it parses it.
    expect(read.sha256).toBe(digestOf(configDocumentSchema.parse(read).config));
    expect(read.sha256).toBe(current.sha256);
  });

  it('leaves a document the schema refuses as it is, for the agent to say why', () => {
    const stored = buildDocument(4, emptyConfiguration());
    const broken = { ...stored, config: { ...stored.config, targetSets: 'none' } } as never;
    expect(readStoredDocument(broken)).toBe(broken);
  });
});
