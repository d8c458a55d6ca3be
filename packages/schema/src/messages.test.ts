import { describe, expect, it } from 'vitest';
import { fieldLabel, issueText, MESSAGES } from './messages.ts';

describe('fieldLabel', () => {
  it('names a field as the GUI does', () => {
    expect(fieldLabel('monitorProtocol')).toBe('Monitoring protocol');
    expect(fieldLabel('primary.address')).toBe('Primary Public IP Address');
    expect(fieldLabel('servers.1.weight')).toBe('Weighting, row 2');
    expect(fieldLabel('servers.0.secondaryAddress')).toBe('Secondary IP Address, row 1');
    expect(fieldLabel('ipfe.B2.agentPort')).toBe('IPFE B2 agent port');
    expect(fieldLabel('addresses.0')).toBe('Address');
    expect(fieldLabel('leastLoad.mpsFactor')).toBe('MPS Factor');
    expect(fieldLabel('colour')).toBeNull();
  });

  it.each([
    'toString',
    'valueOf',
    'constructor',
    'hasOwnProperty',
    '__proto__',
    'servers.0.constructor',
    'members.toString',
  ])('knows no field named after a prototype member: %s', (path) => {
    expect(fieldLabel(path)).toBeNull();
    expect(issueText({ path, message: 'Unrecognized key' })).toBe('Unrecognized key');
  });
});

describe('issueText', () => {
  it('puts the field’s name before a message that does not say which field it is on', () => {
    expect(
      issueText({ path: 'addresses.0', message: 'fd00:2::1 must be on the XSI network' }),
    ).toBe('Address: fd00:2::1 must be on the XSI network');
    expect(issueText({ path: 'servers.2.address', message: '127.0.1.1 is listed twice' })).toBe(
      'IP Address, row 3: 127.0.1.1 is listed twice',
    );
    expect(issueText({ path: 'algorithm', message: MESSAGES.leastLoadNeedsHeartbeat })).toBe(
      `Load Balance Algorithm: ${MESSAGES.leastLoadNeedsHeartbeat}`,
    );
  });

  it('does not name the field twice, but keeps what tells it apart', () => {
    expect(
      issueText({
        path: 'deleteAgeSeconds',
        message: 'Delete Age (s) must be a whole number from 10 to 3110400',
      }),
    ).toBe('Delete Age (s) must be a whole number from 10 to 3110400');
    expect(
      issueText({
        path: 'number',
        message: 'Target Set number must be a whole number from 1 to 32',
      }),
    ).toBe('Target Set number must be a whole number from 1 to 32');
    expect(
      issueText({ path: 'servers', message: 'The Target Set IP List needs at least one server' }),
    ).toBe('The Target Set IP List needs at least one server');
    expect(
      issueText({ path: 'forwardedPorts.1', message: 'Forwarded port 3868 is listed twice' }),
    ).toBe('Forwarded port 3868 is listed twice');
    expect(
      issueText({
        path: 'servers.1.weight',
        message: 'Weighting must be a whole number from 0 to 65535',
      }),
    ).toBe('IP List row 2: Weighting must be a whole number from 0 to 65535');
    expect(
      issueText({
        path: 'ipfe.A2.address',
        message: 'IPFE address must be an IPv4 or IPv6 address',
      }),
    ).toBe('IPFE A2: IPFE address must be an IPv4 or IPv6 address');
  });

  it('leaves a path it does not know out: the message is all there is', () => {
    expect(
      issueText({ path: 'key', message: 'Target Set number must be a whole number from 1 to 32' }),
    ).toBe('Target Set number must be a whole number from 1 to 32');
  });
});
