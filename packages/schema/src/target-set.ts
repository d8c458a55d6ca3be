import { z } from 'zod';
import { choice, flag, intInRange, ipAddress, typeError } from './fields.ts';
import {
  ACTIVE_ACTIVE_IPFES,
  ALGORITHMS,
  ALLOWED_DEVIATION,
  DELETE_AGE_S,
  DESCRIPTION_LENGTH,
  FACTOR,
  FAMILIES,
  IPFE_SLOTS,
  PEER_NODE_THRESHOLD,
  PROTOCOLS,
  SERVING_MODES,
  TARGET_SET_NUMBER,
  TARGET_SET_SERVERS,
  WEIGHT,
  type IpfeSlot,
} from './limits.ts';
import { MESSAGES } from './messages.ts';

export const targetSetNumber = intInRange('Target Set number', TARGET_SET_NUMBER);
export const ipfeSlot = (label: string) => choice(label, IPFE_SLOTS);

export const leastLoadSchema = z.strictObject({
  mpsFactor: intInRange('MPS Factor', FACTOR).default(FACTOR.default),
  connectionCountFactor: intInRange('Connection Count Factor', FACTOR).default(FACTOR.default),
  allowedDeviation: intInRange('Allowed Deviation', ALLOWED_DEVIATION).default(
    ALLOWED_DEVIATION.default,
  ),
  peerNodeAware: flag('Peer Node Aware Least Load').default(true),
  peerNodeThreshold: intInRange(
    'Peer Node Group Distribution Threshold',
    PEER_NODE_THRESHOLD,
  ).default(PEER_NODE_THRESHOLD.default),
});

/**
 * SPEC §2.5: Least Load weighs load by Fm and Fc, so Fm = Fc = 0 leaves it nothing to weigh by.
 * Hash does not use the factors: they are kept as typed, and only their ranges are checked.
 */
export const factorPairRefused = (ts: {
  algorithm: (typeof ALGORITHMS)[number];
  leastLoad: { mpsFactor: number; connectionCountFactor: number };
}) =>
  ts.algorithm === 'leastLoad' &&
  ts.leastLoad.mpsFactor === 0 &&
  ts.leastLoad.connectionCountFactor === 0;

/**
 * The pair rule's shape: the field its issue shows on, and the fields it reads (a form checks the
 * rule again as one of them changes).
 */
export const FACTOR_PAIR_RULE = {
  path: 'leastLoad.mpsFactor',
  reads: ['algorithm', 'leastLoad.mpsFactor', 'leastLoad.connectionCountFactor'],
} as const;

/** The issues that leave the pair rule nothing sound to look at (the root: not an object). */
const FACTOR_PATHS: readonly PropertyKey[][] = [
  [],
  ['leastLoad'],
  ...FACTOR_PAIR_RULE.reads.map((field) => field.split('.')),
];

/** What a description may hold (the source product's own limit). */
const DESCRIPTION_CHARACTERS = /[A-Za-z0-9 ._-]/g;
const descriptionMessage = `Description must be at most ${DESCRIPTION_LENGTH.max} letters, digits, spaces, '-', '_' or '.'`;

export const targetSetServerSchema = z.strictObject({
  address: ipAddress('IP Address'),
  secondaryAddress: ipAddress('Secondary IP Address').nullable().default(null),
  description: z
    .string({ error: descriptionMessage })
    .max(DESCRIPTION_LENGTH.max, {
      error: `Description must be at most ${DESCRIPTION_LENGTH.max} characters`,
    })
    .check((ctx) => {
      const refused = [...new Set(ctx.value.replace(DESCRIPTION_CHARACTERS, ''))];
      if (refused.length === 0) return;
      const named = new Intl.ListFormat('en', { type: 'disjunction' }).format(
        refused.map((c) => (c === "'" ? '"\'"' : `'${c}'`)),
      );
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `Description must not contain ${named}: only letters, digits, spaces, '-', '_' and '.' are allowed`,
      });
    })
    .default(''),
  weight: intInRange('Weighting', WEIGHT).default(WEIGHT.default),
});

export const publicAddressSchema = z.strictObject({
  address: ipAddress('Address'),
  activeIpfe: ipfeSlot('Active IPFE').default('A1'),
});

export const secondaryAddressSchema = z.strictObject({
  address: ipAddress('Secondary Address'),
  activeIpfe: ipfeSlot('Active IPFE for secondary address'),
});

/**
 * A Target Set's fields without the rule between them: build a variant from this (`.extend`), then
 * give it the rule with `withTargetSetRules`.
 */
export const targetSetFieldsSchema = z.strictObject({
  number: targetSetNumber,
  family: choice('Family', FAMILIES),
  protocols: choice('Protocols', PROTOCOLS).default('both'),
  disabled: flag('Disable').default(false),
  initiatorSupport: flag('Initiator Connection Support').default(false),
  deleteAgeSeconds: intInRange('Delete Age (s)', DELETE_AGE_S).default(DELETE_AGE_S.default),
  algorithm: choice('Load Balance Algorithm', ALGORITHMS).default('leastLoad'),
  leastLoad: leastLoadSchema.prefault({}),
  primary: publicAddressSchema,
  secondary: secondaryAddressSchema.nullable().default(null),
  // Decision 018: active/standby (the primary's and secondary's Active IPFE and its mate) or a
  // group of IPFEs announcing the addresses over BGP; then the Active IPFE fields are ignored.
  serving: choice('Serving', SERVING_MODES).default('activeStandby'),
  activeActiveIpfes: z
    .array(ipfeSlot('Active-Active IPFE'), {
      error: typeError('Active-Active IPFEs', 'Active-Active IPFEs must be a list of IPFE slots'),
    })
    .optional(),
  servers: z
    .array(targetSetServerSchema, {
      error: typeError('Target Set IP List', 'Target Set IP List must be a list of servers'),
    })
    .min(TARGET_SET_SERVERS.min, { error: 'The Target Set IP List needs at least one server' })
    .max(TARGET_SET_SERVERS.max, {
      error: `The Target Set IP List holds at most ${TARGET_SET_SERVERS.max} servers`,
    }),
});

type ServingFields = {
  serving: (typeof SERVING_MODES)[number];
  activeActiveIpfes?: IpfeSlot[] | undefined;
  algorithm: (typeof ALGORITHMS)[number];
};

/**
 * The IPFEs of an active-active Target Set, or null when it is served active/standby. The
 * schema's rules make such a group 2–4 distinct slots (ACTIVE_ACTIVE_IPFES).
 */
export function activeActiveGroupOf(
  ts: Pick<ServingFields, 'serving' | 'activeActiveIpfes'>,
): readonly IpfeSlot[] | null {
  return ts.serving === 'activeActive' ? (ts.activeActiveIpfes ?? null) : null;
}

/**
 * Whether a Target Set serves through IPFE `slot`: as its Active IPFE (primary or secondary), or
 * as one of its active-active group. Such a slot's address is read-only.
 */
export function servesThrough(
  ts: Pick<ServingFields, 'serving' | 'activeActiveIpfes'> & {
    primary: { activeIpfe: IpfeSlot };
    secondary?: { activeIpfe: IpfeSlot } | null | undefined;
  },
  slot: IpfeSlot,
): boolean {
  return ts.serving === 'activeActive'
    ? (ts.activeActiveIpfes ?? []).includes(slot)
    : ts.primary.activeIpfe === slot || ts.secondary?.activeIpfe === slot;
}

/**
 * The serving rule's part that shows on the algorithm (Least Load in an active-active set): a form
 * says it, or takes it back, as Serving or the algorithm changes. The rest shows on the IPFE list.
 */
export const LEAST_LOAD_SERVING_RULE = {
  path: 'algorithm',
  reads: ['serving', 'algorithm'],
} as const;

/**
 * Decision 018: the issues of a Target Set's serving mode, each with the field it shows on. An
 * active-active set names 2–4 distinct IPFEs and balances by Hash (Least Load weighs one IPFE's
 * view of the connections, which no IPFE of a group has); an active/standby set names none.
 */
export function servingIssues(ts: ServingFields): { path: string; message: string }[] {
  const list = ts.activeActiveIpfes;
  if (ts.serving === 'activeStandby') {
    return list === undefined
      ? []
      : [{ path: 'activeActiveIpfes', message: MESSAGES.activeActiveIpfesOnlyWithActiveActive }];
  }
  const issues: { path: string; message: string }[] = [];
  if (list !== undefined && !Array.isArray(list)) return issues; // its type error says it
  if (ts.algorithm === 'leastLoad') {
    issues.push({ path: LEAST_LOAD_SERVING_RULE.path, message: MESSAGES.leastLoadNotActiveActive });
  }
  if (list === undefined || list.length < ACTIVE_ACTIVE_IPFES.min) {
    issues.push({ path: 'activeActiveIpfes', message: MESSAGES.activeActiveIpfesTooFew });
    return issues;
  }
  if (list.length > ACTIVE_ACTIVE_IPFES.max) {
    issues.push({ path: 'activeActiveIpfes', message: MESSAGES.activeActiveIpfesTooMany });
    return issues;
  }
  const seen = new Set<IpfeSlot>();
  list.forEach((slot, i) => {
    if (seen.has(slot)) {
      issues.push({ path: `activeActiveIpfes.${i}`, message: `IPFE ${slot} is listed twice` });
    }
    seen.add(slot);
  });
  return issues;
}

/** The serving rule's shape, like FACTOR_PAIR_RULE: where its issues show, what it reads. */
export const SERVING_RULE = {
  path: 'activeActiveIpfes',
  reads: ['serving', 'activeActiveIpfes', 'algorithm'],
} as const;

const SERVING_PATHS: readonly PropertyKey[][] = [[], ...SERVING_RULE.reads.map((field) => [field])];

const hasIssueAt = (issues: readonly { path?: PropertyKey[] }[], paths: readonly PropertyKey[][]) =>
  issues.some((issue) =>
    paths.some(
      (p) => p.length === (issue.path ?? []).length && p.every((key, k) => key === issue.path![k]),
    ),
  );

/**
 * The rules between a Target Set's fields (the Fm / Fc pair with Least Load; the serving mode), on
 * a variant of it.
 */
export const withTargetSetRules = <
  S extends z.ZodType<Parameters<typeof factorPairRefused>[0] & ServingFields>,
>(
  schema: S,
) =>
  schema
    .refine((ts) => !factorPairRefused(ts), {
      path: FACTOR_PAIR_RULE.path.split('.'),
      message: MESSAGES.factorsBothZero,
      // Said beside the other fields' issues, once the algorithm and both factors parse.
      when: ({ issues }) => !hasIssueAt(issues, FACTOR_PATHS),
    })
    .superRefine(
      (ts, ctx) => {
        for (const issue of servingIssues(ts)) {
          ctx.addIssue({ code: 'custom', path: issue.path.split('.'), message: issue.message });
        }
      },
      // Said beside the other fields' issues, once the fields it reads parse.
      { when: ({ issues }) => !hasIssueAt(issues, SERVING_PATHS) },
    );

/** A Target Set as the Insert/Edit pages and the API take it; omitted fields take their defaults. */
export const targetSetSchema = withTargetSetRules(targetSetFieldsSchema);

export type TargetSetInput = z.input<typeof targetSetSchema>;
export type TargetSet = z.output<typeof targetSetSchema>;
export type TargetSetServer = z.output<typeof targetSetServerSchema>;
export type LeastLoad = z.output<typeof leastLoadSchema>;
