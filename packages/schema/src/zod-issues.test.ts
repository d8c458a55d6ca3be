import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { xsiNetworkSchema } from './network.ts';
import { fieldErrorsOf } from './zod-issues.ts';

describe('fieldErrorsOf', () => {
  it('reports a field that fails two checks with one wording once', () => {
    const result = xsiNetworkSchema.safeParse({ name: '', cidr: '10.0.0.0/24' });
    expect(result.success).toBe(false);
    // too short and not matching the pattern: two zod issues, one thing for the operator to fix
    expect(result.error!.issues).toHaveLength(2);
    expect(fieldErrorsOf(result.error!)).toEqual([
      { path: 'name', message: "XSI network name must be 1–32 letters, digits, '-' or '_'" },
    ]);
  });

  it('puts a prefix before every path', () => {
    const result = xsiNetworkSchema.safeParse({ name: 'xsi-v4', cidr: '10.0.0.1/24' });
    expect(fieldErrorsOf(result.error!, ['xsiNetworks', 3])).toEqual([
      {
        path: 'xsiNetworks.3.cidr',
        message: 'Network has host bits set: did you mean 10.0.0.0/24?',
      },
    ]);
  });

  it('turns zod’s generic "received undefined" into "<field> is required"', () => {
    const result = z.strictObject({ sha256: z.string() }).safeParse({});
    expect(fieldErrorsOf(result.error!)).toEqual([
      { path: 'sha256', message: 'sha256 is required' },
    ]);
  });

  it('answers a derived key with "This field cannot be changed" and any other unknown key by name', () => {
    const result = z
      .strictObject({ weight: z.number() })
      .safeParse({ weight: 1, chancePct: 50, colour: 'red' });
    expect(fieldErrorsOf(result.error!)).toEqual([
      { path: 'chancePct', message: 'This field cannot be changed' },
      { path: 'colour', message: 'colour is not a field here' },
    ]);
  });
});
