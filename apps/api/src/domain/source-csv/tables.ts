import {
  APP_SERVERS_MAX,
  appServerInputSchema,
  IPFE_SLOTS,
  optionsSchema,
  PEER_NODE_GROUPS_MAX,
  peerNodeGroupSchema,
  portRangeSchema,
  REJECT_OPTION_LABELS,
  SCTP_REJECT_OPTIONS,
  TARGET_SET_NUMBER,
  targetSetSchema,
  TARGET_SET_SERVERS,
  XSI_NETWORKS_MAX,
  xsiNetworkSchema,
  type Configuration,
} from '@ipfe/schema';
import type { z } from 'zod';
import {
  bgpPeer,
  choice,
  flag,
  freeText,
  int,
  list,
  portRange,
  text,
  type CellKind,
} from './cells.ts';

/**
 * The mapping between the source product's bulk-export CSV and our configuration: one entry per
 * record type (the table name in a row's first cell), one per column. `field` is the path of the
 * value in the entity as our schema takes it. Only the two table names of the source are known;
 * the column spellings follow the source GUI's field labels (docs/migration.md says which).
 */
export interface Column {
  name: string;
  /** The field as the source GUI (or our GUI, for fields the source lacks) labels it. */
  label: string;
  field: string;
  kind: CellKind;
  /** A column the header may lack (ours, added after the first import): its field's default. */
  optional?: boolean;
}

export type Collection = 'options' | Exclude<keyof Configuration, 'options'>;

export interface Table {
  name: string;
  collection: Collection;
  /** "Target Set 3", "application server mp1": the entity of a row, for messages. */
  noun: string;
  /** The column whose value identifies a row (unique in the file); none for IpfeOption. */
  key: string | null;
  /** One row at most (IpfeOption). */
  single: boolean;
  /** The most rows the configuration can hold; more are refused unread. */
  maxRows: number;
  columns: Column[];
  /** Columns numbered 1…max (a Target Set's servers), given the number. */
  numbered?: { pattern: RegExp; max: number; columns: (n: number) => Column[] };
  schema: z.ZodType;
  /** What reading leaves for the schema to decide, made into the schema's shape. */
  finish?: (input: Record<string, unknown>) => void;
}

const col = (name: string, label: string, field: string, kind: CellKind = text): Column => ({
  name,
  label,
  field,
  kind,
});

const optional = (column: Column): Column => ({ ...column, optional: true });

const SLOT_LABELS = Object.fromEntries(IPFE_SLOTS.map((s) => [s, `IPFE-${s}`]));
const slot = choice(SLOT_LABELS);

const ipfeOption: Table = {
  name: 'IpfeOption',
  collection: 'options',
  noun: 'IPFE options',
  key: null,
  single: true,
  maxRows: 1,
  columns: [
    ...IPFE_SLOTS.flatMap((s) => [
      col(`Ipfe${s}Address`, `IPFE-${s} IP Address`, `ipfe.${s}.address`),
      col(`Ipfe${s}AgentPort`, `IPFE-${s} agent port`, `ipfe.${s}.agentPort`, int),
    ]),
    col('StateSyncPort', 'Mate heartbeat port', 'mateHeartbeatPort', int),
    col('StateSyncIntervalMs', 'Mate beacon interval (ms)', 'mateIntervalMs', int),
    col('StateSyncTimeoutMs', 'Mate timeout (ms)', 'mateTimeoutMs', int),
    col('RejectOption', 'TCP reject option', 'tcpRejectOption', choice(REJECT_OPTION_LABELS)),
    col('ForwardedPorts', 'Forwarded ports', 'forwardedPorts', list(int)),
    col(
      'MonitoringProtocol',
      'Monitoring protocol',
      'monitorProtocol',
      choice({ heartbeat: 'Heartbeat', tcpConnectOnly: 'TCP Connect Only', disabled: 'Disabled' }),
    ),
    col('MonitoringPort', 'Monitoring port', 'monitoringPort', int),
    col('ConnectTimeout', 'Connect timeout (s)', 'connectTimeoutS', int),
    col('ConnectTryInterval', 'Connect try interval (s)', 'connectTryIntervalS', int),
    col('LeastLoadThreshold', 'Least Load threshold', 'leastLoadThreshold', int),
    col('ImbalanceThreshold', 'Imbalance threshold (%)', 'imbalanceThresholdPct', int),
    // Issue 27: the source's options that came later; a header from before lacks them.
    ...[
      col(
        'SctpRejectOption',
        'SCTP reject option',
        'sctpRejectOption',
        choice(Object.fromEntries(SCTP_REJECT_OPTIONS.map((o) => [o, REJECT_OPTION_LABELS[o]]))),
      ),
      col(
        'ImbalanceDetectionMinimum',
        'Imbalance detection throughput minimum',
        'imbalanceMinPps',
        int,
      ),
      col('Accounting', 'Accounting', 'accounting', flag),
      col('PacketRateLimit', 'Global packet rate limit', 'packetRateLimitPps', int),
    ].map(optional),
    // Ours (decision 018): BGP for active-active Target Sets; all empty: no BGP.
    ...[
      col('BgpAsn', 'BGP ASN', 'bgp.asn', int),
      col('BgpPeers', 'BGP peers', 'bgp.peers', list(bgpPeer)),
      col('BfdIntervalMs', 'BFD interval (ms)', 'bgp.bfdIntervalMs', int),
      col('BfdMultiplier', 'BFD multiplier', 'bgp.bfdMultiplier', int),
    ].map(optional),
  ],
  schema: optionsSchema,
  finish(input) {
    const ipfe = (input.ipfe ?? {}) as Record<string, unknown>;
    for (const s of IPFE_SLOTS) ipfe[s] ??= null;
    input.ipfe = ipfe;
    input.bgp ??= null;
  },
};

const serverColumns = (n: number): Column[] => [
  col(`Server${n}IpAddress`, 'IP Address', `servers.${n - 1}.address`),
  col(`Server${n}SecondaryIpAddress`, 'Secondary IP Address', `servers.${n - 1}.secondaryAddress`),
  col(`Server${n}Description`, 'Description', `servers.${n - 1}.description`, freeText),
  col(`Server${n}Weighting`, 'Weighting', `servers.${n - 1}.weight`, int),
];

const ipfeListTsa: Table = {
  name: 'IpfeListTsa',
  collection: 'targetSets',
  noun: 'Target Set',
  key: 'TsNumber',
  single: false,
  maxRows: TARGET_SET_NUMBER.max,
  columns: [
    col('TsNumber', 'TS Number', 'number', int),
    col(
      'Family',
      'IPv4 / IPv6 (the Insert button)',
      'family',
      choice({ ipv4: 'IPv4', ipv6: 'IPv6' }),
    ),
    col('Protocols', 'Protocols', 'protocols', choice({ tcp: 'TCP', sctp: 'SCTP', both: 'Both' })),
    col('Disable', 'Disable', 'disabled', flag),
    col('InitiatorConnectionSupport', 'Initiator Connection Support', 'initiatorSupport', flag),
    col('DeleteAge', 'Delete Age', 'deleteAgeSeconds', int),
    col(
      'LoadBalanceAlgorithm',
      'Load Balance Algorithm',
      'algorithm',
      choice({ hash: 'Hash', leastLoad: 'Least Load' }),
    ),
    col('MpsFactor', 'MPS Factor', 'leastLoad.mpsFactor', int),
    col('ConnectionCountFactor', 'Connection Count Factor', 'leastLoad.connectionCountFactor', int),
    col('AllowedDeviation', 'Allowed Deviation', 'leastLoad.allowedDeviation', int),
    col('PeerNodeAwareLeastLoad', 'Peer Node Aware Least Load', 'leastLoad.peerNodeAware', flag),
    col(
      'PeerNodeGroupDistributionThreshold',
      'Peer Node Group Distribution Threshold',
      'leastLoad.peerNodeThreshold',
      int,
    ),
    col('Address', 'Primary Public IP Address: Address', 'primary.address'),
    col('ActiveIpfe', 'Active IPFE', 'primary.activeIpfe', slot),
    col('SecondaryAddress', 'Secondary Address', 'secondary.address'),
    col('SecondaryActiveIpfe', 'Active IPFE for secondary address', 'secondary.activeIpfe', slot),
    // Ours (decision 018): the source serves a Target Set active/standby only.
    ...[
      col(
        'Serving',
        'Serving',
        'serving',
        choice({ activeStandby: 'Active/Standby', activeActive: 'Active-Active' }),
      ),
      col('ActiveActiveIpfes', 'Active-Active IPFEs', 'activeActiveIpfes', list(slot)),
    ].map(optional),
  ],
  numbered: {
    pattern: /^Server(\d{1,3})(IpAddress|SecondaryIpAddress|Description|Weighting)$/,
    max: TARGET_SET_SERVERS.max,
    columns: serverColumns,
  },
  schema: targetSetSchema,
  finish(input) {
    const secondary = input.secondary as Record<string, unknown> | undefined;
    if (!secondary || (secondary.address === undefined && secondary.activeIpfe === undefined)) {
      input.secondary = null;
    }
    const primary = input.primary as Record<string, unknown> | undefined;
    if (input.family === undefined && typeof primary?.address === 'string') {
      input.family = primary.address.includes(':') ? 'ipv6' : 'ipv4';
    }
    input.servers ??= [];
  },
};

const ipfeXsiNetwork: Table = {
  name: 'IpfeXsiNetwork',
  collection: 'xsiNetworks',
  noun: 'XSI network',
  key: 'Name',
  single: false,
  maxRows: XSI_NETWORKS_MAX,
  columns: [col('Name', 'Name', 'name'), col('Network', 'Network', 'cidr')],
  schema: xsiNetworkSchema,
};

const ipfeAppServer: Table = {
  name: 'IpfeAppServer',
  collection: 'appServers',
  noun: 'application server',
  key: 'Name',
  single: false,
  maxRows: APP_SERVERS_MAX,
  columns: [
    col('Name', 'Name', 'name'),
    col('Address', 'IP Address', 'addresses.0'),
    col('SecondaryAddress', 'Secondary IP Address', 'addresses.1'),
    col('InitiatorPortRange', 'Initiator Port Range', 'initiatorPortRange', portRange),
  ],
  // An empty port range is allocated once every row is read (`allocateMissingRanges`).
  schema: appServerInputSchema.extend({ initiatorPortRange: portRangeSchema.optional() }),
  finish(input) {
    const addresses = (input.addresses as unknown[] | undefined) ?? [];
    // An empty secondary cell is no secondary address; an empty primary is left for the schema.
    if (addresses.length === 2 && addresses[1] === undefined) addresses.pop();
    input.addresses = addresses;
  },
};

const ipfePeerNodeGroup: Table = {
  name: 'IpfePeerNodeGroup',
  collection: 'peerNodeGroups',
  noun: 'peer node group',
  key: 'Name',
  single: false,
  maxRows: PEER_NODE_GROUPS_MAX,
  columns: [col('Name', 'Name', 'name'), col('Members', 'Members', 'members', list(text))],
  schema: peerNodeGroupSchema,
};

/** Every record type, in the order an export writes them (what a Target Set refers to first). */
export const TABLES: readonly Table[] = [
  ipfeOption,
  ipfeXsiNetwork,
  ipfeAppServer,
  ipfePeerNodeGroup,
  ipfeListTsa,
];
