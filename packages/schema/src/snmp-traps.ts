import { z } from 'zod';
import { choice, ipAddress, port, typeError } from './fields.ts';
import type { FieldError } from './zod-issues.ts';

/** Where the OAM sends its alarm traps (IPFE › Configuration › Options › SNMP traps). */
export const SNMP_TRAP_PORT_DEFAULT = 162;
export const SNMP_TRAP_DESTINATIONS_MAX = 8;
export const SNMP_VERSIONS = ['v2c', 'v3'] as const;
export const SNMP_SECURITY_LEVELS = ['noAuthNoPriv', 'authNoPriv', 'authPriv'] as const;
export const SNMP_AUTH_PROTOCOLS = ['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'] as const;
/** DES is refused: the OpenSSL 3 of Node.js 17+ no longer provides it (decision 017). */
export const SNMP_PRIV_PROTOCOLS = ['aes', 'aes256b', 'aes256r'] as const;
/** RFC 3414 §11.2: a pass phrase of at least 8 characters. */
export const SNMP_KEY_LENGTH = { min: 8, max: 128 } as const;

export type SnmpSecurityLevel = (typeof SNMP_SECURITY_LEVELS)[number];
export type SnmpAuthProtocol = (typeof SNMP_AUTH_PROTOCOLS)[number];
export type SnmpPrivProtocol = (typeof SNMP_PRIV_PROTOCOLS)[number];

/** Printable ASCII without spaces at either end: what a manager's form lets one type. */
function secret(label: string, length: { min: number; max: number }) {
  const message = `${label} must be ${length.min}–${length.max} printable ASCII characters`;
  return z
    .string({ error: typeError(label, message) })
    .min(length.min, { error: message })
    .max(length.max, { error: message })
    .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, { error: message });
}

const privProtocol = z
  .string({ error: typeError('Privacy protocol', 'Privacy protocol must be a string') })
  .check((ctx) => {
    if ((SNMP_PRIV_PROTOCOLS as readonly string[]).includes(ctx.value)) return;
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message:
        ctx.value === 'des'
          ? 'Privacy protocol des cannot be used: the OAM’s Node.js (OpenSSL 3) no longer provides DES; choose aes, aes256b or aes256r'
          : `Privacy protocol must be one of: ${SNMP_PRIV_PROTOCOLS.join(', ')}`,
    });
  })
  .transform((v) => v as SnmpPrivProtocol);

const where = {
  host: ipAddress('Trap destination address'),
  port: port('Trap destination port').default(SNMP_TRAP_PORT_DEFAULT),
};

/**
 * One destination as an admin sends it. Secrets (community, keys) are write-only: omitted, they
 * keep what is stored for the same address, port, version (and user); new, they are required.
 */
const v2cInputSchema = z.strictObject({
  ...where,
  version: z.literal('v2c'),
  community: secret('Community', { min: 1, max: 64 }).optional(),
});

const v3InputSchema = z
  .strictObject({
    ...where,
    version: z.literal('v3'),
    user: secret('User name', { min: 1, max: 32 }),
    securityLevel: choice('Security level', SNMP_SECURITY_LEVELS),
    authProtocol: choice('Auth protocol', SNMP_AUTH_PROTOCOLS).nullable().default(null),
    authKey: secret('Auth key', SNMP_KEY_LENGTH).optional(),
    privProtocol: privProtocol.nullable().default(null),
    privKey: secret('Privacy key', SNMP_KEY_LENGTH).optional(),
  })
  .check((ctx) => {
    const v = ctx.value;
    const auth = v.securityLevel !== 'noAuthNoPriv';
    const priv = v.securityLevel === 'authPriv';
    const issue = (path: string, message: string) =>
      ctx.issues.push({ code: 'custom', input: v, path: [path], message });
    if (auth && v.authProtocol === null)
      issue('authProtocol', `Auth protocol is required at security level ${v.securityLevel}`);
    if (!auth && v.authProtocol !== null)
      issue(
        'authProtocol',
        'Auth protocol is not used at security level noAuthNoPriv: leave it empty',
      );
    if (!auth && v.authKey !== undefined)
      issue('authKey', 'Auth key is not used at security level noAuthNoPriv: leave it empty');
    if (priv && v.privProtocol === null)
      issue('privProtocol', 'Privacy protocol is required at security level authPriv');
    if (!priv && v.privProtocol !== null)
      issue(
        'privProtocol',
        `Privacy protocol is not used at security level ${v.securityLevel}: leave it empty`,
      );
    if (!priv && v.privKey !== undefined)
      issue(
        'privKey',
        `Privacy key is not used at security level ${v.securityLevel}: leave it empty`,
      );
  });

export const snmpTrapDestinationInputSchema = z.discriminatedUnion(
  'version',
  [v2cInputSchema, v3InputSchema],
  {
    error: (issue) => {
      const input = issue.input;
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        return 'A trap destination must be an object with an address, a port and a version';
      return (input as { version?: unknown }).version === undefined
        ? 'Version is required: v2c or v3'
        : `Version must be one of: ${SNMP_VERSIONS.join(', ')}`;
    },
  },
);
export type SnmpTrapDestinationInput = z.output<typeof snmpTrapDestinationInputSchema>;

/** PUT /api/options/snmp-traps: every destination at once. */
export const snmpTrapsInputSchema = z
  .strictObject({
    destinations: z
      .array(snmpTrapDestinationInputSchema, { error: 'Destinations must be a list' })
      .max(SNMP_TRAP_DESTINATIONS_MAX, {
        error: `At most ${SNMP_TRAP_DESTINATIONS_MAX} trap destinations`,
      }),
  })
  .check((ctx) => {
    const seen = new Map<string, number>();
    ctx.value.destinations.forEach((d, i) => {
      const key = `${d.host}|${d.port}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else
        ctx.issues.push({
          code: 'custom',
          input: d,
          path: ['destinations', i, 'port'],
          message: `Destination ${first + 1} already sends to ${d.host} port ${d.port}`,
        });
    });
  });
export type SnmpTrapsInput = z.output<typeof snmpTrapsInputSchema>;

/** A destination as the OAM keeps it, secrets included: never answered. */
export type SnmpTrapDestination =
  | { host: string; port: number; version: 'v2c'; community: string }
  | {
      host: string;
      port: number;
      version: 'v3';
      user: string;
      securityLevel: SnmpSecurityLevel;
      authProtocol: SnmpAuthProtocol | null;
      authKey: string | null;
      privProtocol: SnmpPrivProtocol | null;
      privKey: string | null;
    };

/** GET /api/options/snmp-traps: the destinations with, instead of each secret, whether it is set. */
export const snmpTrapsViewSchema = z.object({
  /** The OAM's SNMPv3 engine ID (hex): a v3 receiver needs it to know the OAM's user. */
  engineId: z.string(),
  destinations: z.array(
    z.discriminatedUnion('version', [
      z.object({
        host: z.string(),
        port: z.number(),
        version: z.literal('v2c'),
        communitySet: z.boolean(),
      }),
      z.object({
        host: z.string(),
        port: z.number(),
        version: z.literal('v3'),
        user: z.string(),
        securityLevel: z.enum(SNMP_SECURITY_LEVELS),
        authProtocol: z.enum(SNMP_AUTH_PROTOCOLS).nullable(),
        authKeySet: z.boolean(),
        privProtocol: z.enum(SNMP_PRIV_PROTOCOLS).nullable(),
        privKeySet: z.boolean(),
      }),
    ]),
  ),
});
export type SnmpTrapsView = z.output<typeof snmpTrapsViewSchema>;

/** What an admin's view shows of a stored destination. */
export function snmpTrapDestinationView(
  d: SnmpTrapDestination,
): SnmpTrapsView['destinations'][number] {
  if (d.version === 'v2c')
    return { host: d.host, port: d.port, version: 'v2c', communitySet: d.community !== '' };
  return {
    host: d.host,
    port: d.port,
    version: 'v3',
    user: d.user,
    securityLevel: d.securityLevel,
    authProtocol: d.authProtocol,
    authKeySet: d.authKey !== null,
    privProtocol: d.privProtocol,
    privKeySet: d.privKey !== null,
  };
}

const identityOf = (d: SnmpTrapDestination | SnmpTrapDestinationInput) =>
  `${d.version}|${d.host}|${d.port}|${d.version === 'v3' ? d.user : ''}`;

/**
 * The destinations to store: each omitted secret taken from the stored destination of the same
 * version, address, port (and user), so that a secret never follows a destination it was not given
 * for. A secret that is neither sent nor stored is named as required.
 */
export function resolveSnmpTrapDestinations(
  input: SnmpTrapsInput,
  stored: readonly SnmpTrapDestination[],
): { destinations: SnmpTrapDestination[]; errors: FieldError[] } {
  const byIdentity = new Map(stored.map((d) => [identityOf(d), d]));
  const errors: FieldError[] = [];
  const destinations = input.destinations.map((d, i): SnmpTrapDestination => {
    const before = byIdentity.get(identityOf(d));
    const need = (field: string, label: string, value: string | null | undefined) => {
      if (value) return value;
      errors.push({ path: `destinations.${i}.${field}`, message: `${label} is required` });
      return '';
    };
    if (d.version === 'v2c') {
      const old = before?.version === 'v2c' ? before.community : undefined;
      return { ...d, community: need('community', 'Community', d.community ?? old) };
    }
    const old = before?.version === 'v3' ? before : undefined;
    const auth = d.securityLevel !== 'noAuthNoPriv';
    const priv = d.securityLevel === 'authPriv';
    return {
      ...d,
      authKey: auth ? need('authKey', 'Auth key', d.authKey ?? old?.authKey) : null,
      privKey: priv ? need('privKey', 'Privacy key', d.privKey ?? old?.privKey) : null,
    };
  });
  return { destinations, errors };
}
