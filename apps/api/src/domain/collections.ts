import { z } from 'zod';
import {
  allocatePortRange,
  appServerInputSchema,
  appServerViewSchema,
  deriveTargetSet,
  lowestUnusedTargetSetNumber,
  MESSAGES,
  normalizeTargetSet,
  peerNodeGroupSchema,
  peerNodeGroupViewSchema,
  targetSetNumber,
  targetSetFieldsSchema,
  targetSetViewSchema,
  withTargetSetRules,
  xsiNetworkSchema,
  xsiNetworkViewSchema,
  APP_SERVERS_MAX,
  type AgentStatus,
  type AppServer,
  type ConfigIssue,
  type Configuration,
  type FieldError,
  type IpfeSlot,
  type PeerNodeGroup,
  type TargetSet,
  type XsiNetwork,
} from '@ipfe/schema';
import { validationError } from '../http/errors.ts';

type Kind = 'xsiNetworks' | 'appServers' | 'peerNodeGroups' | 'targetSets';

/**
 * What the generic routes need to know about one collection of the configuration: its URL, its
 * key, how an operator's input becomes the stored item, and how the item is shown.
 */
export interface CollectionSpec<Stored, Input> {
  kind: Kind;
  /** "XSI network", for messages and revision summaries. */
  noun: string;
  route: string;
  keyField: 'name' | 'number';
  keyParam: z.ZodType<string | number>;
  inputSchema: z.ZodType<Input>;
  viewSchema: z.ZodType;
  /** The field that carries the blame when the change breaks another entity. */
  blameField: string;
  toStored(input: Input, base: Configuration, existing: Stored | null): Stored;
  /** The item as shown, with its derived fields: a function of the revision alone. */
  view(config: Configuration, item: Stored): object;
  /**
   * The fields that come from what the agents report now, shown after those of `view`; none of
   * them is a field of `view`.
   */
  live?(item: Stored, live: LiveState): object;
}

/** What the agents report now, for the live fields of a view. */
export interface LiveState {
  liveTargetSet(
    number: number,
    tsa: string,
  ): {
    owner: IpfeSlot | null;
    targetSet: Pick<AgentStatus['targetSets'][number], 'activeBindings' | 'notForwarded'> | null;
  };
  /** Why no IPFE serves the Target Set now; null when one does or nobody has reported. */
  notServed(ts: TargetSet): string | null;
}

const nameParamMessage = 'The name in the address must be 1–64 characters';
const nameParam = z
  .string()
  .min(1, { error: nameParamMessage })
  .max(64, { error: nameParamMessage });

export const xsiNetworks: CollectionSpec<XsiNetwork, XsiNetwork> = {
  kind: 'xsiNetworks',
  noun: 'XSI network',
  route: 'xsi-networks',
  keyField: 'name',
  keyParam: nameParam,
  inputSchema: xsiNetworkSchema,
  viewSchema: xsiNetworkViewSchema,
  blameField: 'cidr',
  toStored: (input) => input,
  view: (_config, item) => item,
};

export const appServers: CollectionSpec<AppServer, z.output<typeof appServerInputSchema>> = {
  kind: 'appServers',
  noun: 'application server',
  route: 'app-servers',
  keyField: 'name',
  keyParam: nameParam,
  inputSchema: appServerInputSchema,
  viewSchema: appServerViewSchema,
  blameField: 'addresses',
  toStored(input, base, existing) {
    // The Initiator Port Range is allocated once, at creation, and kept for life.
    const range =
      existing?.initiatorPortRange ??
      allocatePortRange(base.appServers.map((s) => s.initiatorPortRange));
    if (!range) {
      throw validationError([
        {
          path: 'name',
          message: `At most ${APP_SERVERS_MAX} application servers (one Initiator Port Range each)`,
        },
      ]);
    }
    return { ...input, initiatorPortRange: range };
  },
  view: (_config, item) => item,
};

export const peerNodeGroups: CollectionSpec<PeerNodeGroup, PeerNodeGroup> = {
  kind: 'peerNodeGroups',
  noun: 'peer node group',
  route: 'peer-node-groups',
  keyField: 'name',
  keyParam: nameParam,
  inputSchema: peerNodeGroupSchema,
  viewSchema: peerNodeGroupViewSchema,
  blameField: 'members',
  toStored: (input) => input,
  view: (_config, item) => item,
};

/** On insert the number may be left out: the lowest unused one is taken. */
export const targetSetInputSchema = withTargetSetRules(
  targetSetFieldsSchema.extend({ number: targetSetNumber.optional() }),
);
type TargetSetBody = z.output<typeof targetSetInputSchema>;

export const targetSets: CollectionSpec<TargetSet, TargetSetBody> = {
  kind: 'targetSets',
  noun: 'Target Set',
  route: 'target-sets',
  keyField: 'number',
  keyParam: z.coerce
    .number({ error: 'Target Set number must be a whole number from 1 to 32' })
    .pipe(targetSetNumber),
  inputSchema: targetSetInputSchema,
  viewSchema: targetSetViewSchema,
  blameField: 'servers',
  toStored(input, base, existing) {
    if (existing) {
      const readOnly: FieldError[] = [];
      if (input.number !== undefined && input.number !== existing.number) {
        readOnly.push({ path: 'number', message: MESSAGES.readOnly });
      }
      if (input.family !== existing.family)
        readOnly.push({ path: 'family', message: MESSAGES.readOnly });
      if (readOnly.length > 0) throw validationError(readOnly);
      return normalizeTargetSet({ ...input, number: existing.number });
    }
    const number = input.number ?? lowestUnusedTargetSetNumber(base.targetSets);
    if (number === null) {
      throw validationError([{ path: 'number', message: 'All 32 Target Set numbers are in use' }]);
    }
    return normalizeTargetSet({ ...input, number });
  },
  view: (config, item) => deriveTargetSet(config, item),
  live(item, live) {
    const { owner, targetSet } = live.liveTargetSet(item.number, item.primary.address);
    return {
      owner,
      activeBindings: targetSet?.activeBindings ?? null,
      notForwarded: targetSet?.notForwarded ?? null,
      notServed: live.notServed(item),
    };
  },
};

// The specs differ in their item types; the routes treat them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const COLLECTIONS: CollectionSpec<any, any>[] = [
  xsiNetworks,
  appServers,
  peerNodeGroups,
  targetSets,
];

export function keyOf(spec: CollectionSpec<unknown, unknown>, item: unknown): string {
  return String((item as Record<string, unknown>)[spec.keyField]);
}

export function itemsOf<T>(config: Configuration, spec: CollectionSpec<T, unknown>): T[] {
  return config[spec.kind] as T[];
}

/** The warnings that stand on one entity, out of a configuration's issues. */
export function warningsOf(issues: ConfigIssue[], entityPath: string): FieldError[] {
  return issues
    .filter((i) => i.severity === 'warning' && i.path.startsWith(`${entityPath}.`))
    .map((i) => ({ path: i.path.slice(entityPath.length + 1), message: i.message }));
}
