import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configurationShape, type Configuration } from './configuration.ts';
import { deriveConfiguration, portRangeOfSlice, type DocumentConfig } from './derive.ts';
import { canonicalJson, digestOf, sha256Hex } from './digest.ts';
import { configDocumentSchema, DOCUMENT_FORMAT_VERSION } from './document.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

/** Target Set 1 (Fm/Fc typed as 1/2) over mp1 and mp2 with an IPv6 secondary; IPFEs A1 and A2. */
function configInput(): z.input<typeof configurationShape> {
  return {
    options: { ipfe: { A1: { address: '10.0.0.201' }, A2: { address: '10.0.0.202' } } },
    xsiNetworks: [
      { name: 'xsi-v4', cidr: '10.0.0.0/24' },
      { name: 'xsi-v6', cidr: '2001:db8::/64' },
    ],
    appServers: [
      {
        name: 'mp1',
        addresses: ['10.0.0.11', '2001:db8::11'],
        initiatorPortRange: portRangeOfSlice(0),
      },
      {
        name: 'mp2',
        addresses: ['10.0.0.12', '2001:db8::12'],
        initiatorPortRange: portRangeOfSlice(1),
      },
    ],
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        leastLoad: { mpsFactor: 1, connectionCountFactor: 2 },
        primary: { address: '10.0.0.100', activeIpfe: 'A1' },
        secondary: { address: '2001:db8::100', activeIpfe: 'A2' },
        servers: [
          { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
          { address: '10.0.0.12', secondaryAddress: '2001:db8::12' },
        ],
      },
    ],
  };
}

function stored(): Configuration {
  return configurationShape.parse(configInput());
}

function documentOf(config: Configuration, revision = 7) {
  const derived = deriveConfiguration(config);
  return {
    formatVersion: DOCUMENT_FORMAT_VERSION,
    revision,
    sha256: digestOf(derived),
    config: derived,
  };
}

function errorsOf(input: unknown): FieldError[] {
  const result = configDocumentSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

const MISMATCH = 'Target Set 1: derived fields do not match the configuration';

describe('configDocumentSchema', () => {
  it('accepts a document built with deriveConfiguration, unchanged', () => {
    const doc = documentOf(stored());
    expect(configDocumentSchema.parse(doc)).toEqual(doc);
  });

  it('accepts it after a trip through JSON, as an agent receives it', () => {
    const doc = JSON.parse(JSON.stringify(documentOf(stored()))) as unknown;
    expect(errorsOf(doc)).toEqual([]);
  });

  it('accepts the empty configuration', () => {
    expect(errorsOf(documentOf(configurationShape.parse({}), 0))).toEqual([]);
  });

  const tamperings: [string, (config: DocumentConfig) => void][] = [
    ['the standby IPFE', (c) => void (c.targetSets[0]!.primary.standbyIpfe = null)],
    ['the secondary standby IPFE', (c) => void (c.targetSets[0]!.secondary!.standbyIpfe = 'B1')],
    ['a chance of selection', (c) => void (c.targetSets[0]!.servers[0]!.chancePct = 60)],
    ['a row’s application server', (c) => void (c.targetSets[0]!.servers[1]!.appServer = 'mp1')],
    [
      'a row’s port range',
      (c) => void (c.targetSets[0]!.servers[0]!.initiatorPortRange = portRangeOfSlice(5)),
    ],
    [
      'the normalized factors (back to the typed 1 / 2)',
      (c) => {
        c.targetSets[0]!.leastLoad.mpsFactor = 1;
        c.targetSets[0]!.leastLoad.connectionCountFactor = 2;
      },
    ],
  ];

  it.each(tamperings)('refuses a document whose %s was tampered with', (_, tamper) => {
    const doc = documentOf(stored());
    tamper(doc.config);
    expect(errorsOf(doc)).toEqual([{ path: 'config.targetSets.0', message: MISMATCH }]);
  });

  it('refuses a document whose configuration breaks a rule, at the field', () => {
    const config = stored();
    config.targetSets[0]!.primary.address = '10.0.1.100';
    expect(errorsOf(documentOf(config))).toEqual([
      {
        path: 'config.targetSets.0.primary.address',
        message: '10.0.1.100 must be on the XSI network',
      },
    ]);
  });

  it('refuses a document that lacks a derived field', () => {
    const doc = documentOf(stored());
    const row: Record<string, unknown> = doc.config.targetSets[0]!.servers[0]!;
    delete row.chancePct;
    expect(errorsOf(doc)).toEqual([
      { path: 'config.targetSets.0.servers.0.chancePct', message: 'chancePct is required' },
    ]);
  });

  it('checks the envelope: version, revision, digest format, no other keys', () => {
    const doc = documentOf(stored());
    expect(errorsOf({ ...doc, formatVersion: 2 })).toEqual([
      { path: 'formatVersion', message: 'formatVersion must be 1' },
    ]);
    expect(errorsOf({ ...doc, revision: 1.5 })).toEqual([
      { path: 'revision', message: 'revision must be a whole number' },
    ]);
    expect(errorsOf({ ...doc, sha256: doc.sha256.toUpperCase() })).toEqual([
      { path: 'sha256', message: 'sha256 must be 64 hex digits' },
    ]);
    const { sha256: _sha256, ...withoutDigest } = doc;
    expect(errorsOf(withoutDigest)).toEqual([{ path: 'sha256', message: 'sha256 is required' }]);
    expect(errorsOf({ ...doc, author: 'ops' })).toEqual([
      { path: 'author', message: 'author is not a field here' },
    ]);
  });
});

describe('digest', () => {
  it('canonical JSON sorts keys and drops white space', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,1]},"b":1}',
    );
  });

  it('is the SHA-256 of the canonical JSON, in lower-case hex', () => {
    expect(digestOf({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(digestOf({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      'bc9ad11b7850575d46b7bdd04896acccd62c7015fa4291f222935e5b95c11d48',
    );
    expect(sha256Hex('{}')).toBe(digestOf({}));
  });

  it('is stable under key order, and changes with array order or any value', () => {
    const a = { revision: 3, config: { x: [1, 2], y: { p: 'q', r: true } } };
    const reordered = { config: { y: { r: true, p: 'q' }, x: [1, 2] }, revision: 3 };
    expect(digestOf(reordered)).toBe(digestOf(a));
    expect(digestOf({ ...a, config: { ...a.config, x: [2, 1] } })).not.toBe(digestOf(a));
    expect(digestOf({ ...a, revision: 4 })).not.toBe(digestOf(a));
  });

  it('one configuration has one digest, whatever order its entities were entered in', () => {
    const input = configInput();
    const shuffled = {
      targetSets: input.targetSets,
      appServers: [...input.appServers!].reverse(),
      xsiNetworks: [...input.xsiNetworks!].reverse(),
      options: input.options,
    };
    expect(digestOf(deriveConfiguration(configurationShape.parse(shuffled)))).toBe(
      digestOf(deriveConfiguration(stored())),
    );
  });

  it('refuses a value without a JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});
