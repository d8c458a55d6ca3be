import { describe, expect, it } from 'vitest';
import { configurationShape } from './configuration.ts';
import { portRangeOfSlice } from './derive.ts';
import { errorsOf as configErrors } from './issues.ts';
import { issueText, MESSAGES } from './messages.ts';
import { checkConfiguration } from './rules.ts';
import { activeActiveGroupOf, targetSetSchema } from './target-set.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

/** An active-active Target Set over IPFEs A1 and B1, balanced by Hash. */
function activeActive(parts: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number: 1,
    family: 'ipv4',
    algorithm: 'hash',
    serving: 'activeActive',
    activeActiveIpfes: ['A1', 'B1'],
    primary: { address: '10.0.0.100' },
    servers: [{ address: '10.0.0.11' }, { address: '10.0.0.12' }],
    ...parts,
  };
}

function errorsOf(input: unknown): FieldError[] {
  const result = targetSetSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

describe('Serving: active/standby or active-active (decision 018)', () => {
  it('a Target Set without the field is active/standby, as before', () => {
    const { serving, activeActiveIpfes, ...rest } = activeActive();
    void serving;
    void activeActiveIpfes;
    const parsed = targetSetSchema.parse({ ...rest, algorithm: 'leastLoad' });
    expect(parsed.serving).toBe('activeStandby');
    expect(parsed.activeActiveIpfes).toBeUndefined();
    expect(parsed.primary.activeIpfe).toBe('A1');
  });

  it('names the group of an active-active set, none of an active/standby one', () => {
    expect(activeActiveGroupOf(targetSetSchema.parse(activeActive()))).toEqual(['A1', 'B1']);
    const { serving, activeActiveIpfes, ...rest } = activeActive();
    void serving;
    void activeActiveIpfes;
    expect(activeActiveGroupOf(targetSetSchema.parse(rest))).toBeNull();
  });

  it('takes an active-active set of 2 to 4 distinct IPFEs with Hash', () => {
    expect(targetSetSchema.parse(activeActive()).activeActiveIpfes).toEqual(['A1', 'B1']);
    expect(errorsOf(activeActive({ activeActiveIpfes: ['A1', 'A2', 'B1', 'B2'] }))).toEqual([]);
  });

  it('refuses Least Load on the algorithm field, saying why', () => {
    expect(errorsOf(activeActive({ algorithm: 'leastLoad' }))).toEqual([
      { path: 'algorithm', message: MESSAGES.leastLoadNotActiveActive },
    ]);
    // Least Load is the default algorithm: leaving it out is choosing it.
    const { algorithm, ...rest } = activeActive();
    void algorithm;
    expect(errorsOf(rest)).toEqual([
      { path: 'algorithm', message: MESSAGES.leastLoadNotActiveActive },
    ]);
    expect(issueText({ path: 'algorithm', message: MESSAGES.leastLoadNotActiveActive })).toBe(
      `Load Balance Algorithm: ${MESSAGES.leastLoadNotActiveActive}`,
    );
  });

  it.each([
    [undefined, 'activeActiveIpfes', MESSAGES.activeActiveIpfesTooFew],
    [[], 'activeActiveIpfes', MESSAGES.activeActiveIpfesTooFew],
    [['A1'], 'activeActiveIpfes', MESSAGES.activeActiveIpfesTooFew],
    [['A1', 'A2', 'B1', 'B2', 'A1'], 'activeActiveIpfes', MESSAGES.activeActiveIpfesTooMany],
    [['A1', 'A1'], 'activeActiveIpfes.1', 'IPFE A1 is listed twice'],
    [['A1', 'C1'], 'activeActiveIpfes.1', 'Active-Active IPFE must be one of: A1, A2, B1, B2'],
    ['A1 B1', 'activeActiveIpfes', 'Active-Active IPFEs must be a list of IPFE slots'],
  ])('refuses the IPFEs %j, naming the field', (list, path, message) => {
    expect(errorsOf(activeActive({ activeActiveIpfes: list }))).toEqual([{ path, message }]);
  });

  it('refuses a list of IPFEs on an active/standby set, and an unknown serving mode', () => {
    expect(errorsOf(activeActive({ serving: 'activeStandby' }))).toEqual([
      { path: 'activeActiveIpfes', message: MESSAGES.activeActiveIpfesOnlyWithActiveActive },
    ]);
    expect(errorsOf(activeActive({ serving: 'ecmp' }))).toEqual([
      { path: 'serving', message: 'Serving must be one of: activeStandby, activeActive' },
    ]);
  });

  it('tells the serving issues beside the other fields’ issues', () => {
    const errors = errorsOf(activeActive({ activeActiveIpfes: ['B1'], deleteAgeSeconds: 1 }));
    expect(errors.map((e) => e.path).sort()).toEqual(['activeActiveIpfes', 'deleteAgeSeconds']);
  });
});

describe('active-active across the configuration', () => {
  const config = (options: Record<string, unknown>, ts = activeActive()) =>
    configurationShape.parse({
      options,
      xsiNetworks: [{ name: 'lab', cidr: '10.0.0.0/24' }],
      appServers: [
        { name: 'mp1', addresses: ['10.0.0.11'], initiatorPortRange: portRangeOfSlice(0) },
        { name: 'mp2', addresses: ['10.0.0.12'], initiatorPortRange: portRangeOfSlice(1) },
      ],
      targetSets: [ts],
    });
  const bgp = { asn: 65010, peers: [{ address: '10.0.0.1', asn: 65000 }] };
  const ipfe = { A1: { address: '10.0.0.201' }, B1: { address: '10.0.0.203' } };

  it('passes with its IPFEs configured and BGP set', () => {
    expect(configErrors(checkConfiguration(config({ ipfe, bgp })))).toEqual([]);
  });

  it('needs every IPFE of the group configured, and BGP, naming where to cure it', () => {
    const issues = checkConfiguration(config({ ipfe: { A1: ipfe.A1 } }));
    expect(issues.map(({ path, message, cause }) => ({ path, message, cause }))).toEqual([
      {
        path: 'targetSets.0.activeActiveIpfes.1',
        message: `IPFE B1 is not configured. ${MESSAGES.configureIpfe}`,
        cause: 'options.ipfe.B1.address',
      },
      {
        path: 'targetSets.0.serving',
        message: MESSAGES.activeActiveNeedsBgp,
        cause: 'options.bgp',
      },
    ]);
  });

  it('ignores the Active IPFE fields: an unconfigured one is no error, no warning', () => {
    const ts = activeActive({
      primary: { address: '10.0.0.100', activeIpfe: 'B2' },
      secondary: { address: '10.0.0.101', activeIpfe: 'B2' },
      servers: [
        { address: '10.0.0.11', secondaryAddress: '10.0.0.21' },
        { address: '10.0.0.12', secondaryAddress: '10.0.0.22' },
      ],
    });
    const parsed = configurationShape.parse({
      options: { ipfe, bgp },
      xsiNetworks: [{ name: 'lab', cidr: '10.0.0.0/24' }],
      appServers: [
        {
          name: 'mp1',
          addresses: ['10.0.0.11', '10.0.0.21'],
          initiatorPortRange: portRangeOfSlice(0),
        },
        {
          name: 'mp2',
          addresses: ['10.0.0.12', '10.0.0.22'],
          initiatorPortRange: portRangeOfSlice(1),
        },
      ],
      targetSets: [ts],
    });
    expect(checkConfiguration(parsed)).toEqual([]);
  });
});

describe('the serving fields’ names in messages', () => {
  it('names them as the GUI does', () => {
    expect(issueText({ path: 'activeActiveIpfes.1', message: 'IPFE A1 is listed twice' })).toBe(
      'Active-Active IPFEs: IPFE A1 is listed twice',
    );
    expect(
      issueText({ path: 'activeActiveIpfes', message: MESSAGES.activeActiveIpfesTooFew }),
    ).toBe(MESSAGES.activeActiveIpfesTooFew);
    expect(issueText({ path: 'serving', message: MESSAGES.activeActiveNeedsBgp })).toBe(
      `Serving: ${MESSAGES.activeActiveNeedsBgp}`,
    );
    expect(
      issueText({
        path: 'bgp.bfdMultiplier',
        message: 'BFD multiplier must be a whole number from 2 to 10',
      }),
    ).toBe('BFD multiplier must be a whole number from 2 to 10');
  });
});
