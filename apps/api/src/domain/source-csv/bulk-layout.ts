import {
  IPFE_SLOTS,
  TARGET_SET_NUMBER,
  type IpfeSlot,
  type Options,
  type TargetSet,
} from '@ipfe/schema';

/**
 * The source product's own bulk file (its Bulk Export writes it, its Bulk Import reads it):
 * positional, header-less records, column 0 the application type, column 1 the record's keyword.
 * The IPFE has two records: `IpfeOption` (keyword `Options`: the options, then 13 columns for each
 * of the 32 Target Sets) and `IpfeListTsa` (the IP lists), whose layout the source's public pages
 * do not show: decision 024 lays it out. docs/migration.md has both tables.
 */

export const APPLICATION_TYPE = 'IPFE';
export const OPTIONS_KEYWORD = 'Options';
/** Decision 024: the IpfeListTsa record's keyword as we write it. */
export const LIST_KEYWORD = 'ListTsa';
/** The keywords read as each record (any case): the known one, and the record's own name. */
export const OPTIONS_KEYWORDS = ['options', 'ipfeoption'];
export const LIST_KEYWORDS = ['listtsa', 'ipfelisttsa', 'tsalist', 'tsaiplist'];

export const TSA_COUNT = TARGET_SET_NUMBER.max;
export const TSA_FIELDS = [
  'DeleteAge',
  'IPAddress',
  'IPSecondaryAddress',
  'IPSecondaryPreferredIpfe',
  'LoadAlgorithm',
  'PreferredIpfe',
  'Protocols',
  'TsDisable',
  'AllowedDeviation',
  'LoadFactorMPS',
  'LoadFactorConn',
  'PeerGroup',
  'PeerGroupDelta',
] as const;
export type TsaField = (typeof TSA_FIELDS)[number];
export const FIRST_TSA_COLUMN = 19;
/** 2 + 17 option columns + 32 × 13 Target Set columns. */
export const OPTIONS_RECORD_COLUMNS = FIRST_TSA_COLUMN + TSA_COUNT * TSA_FIELDS.length;

/** What a cell reads as: a value for our schema (undefined: empty), or why it cannot be. */
export type CellRead = { value: unknown } | { problem: string };

export interface Codec {
  read(text: string, column: string): CellRead;
  write(value: unknown): string;
}

const empty = (text: string) => text.trim() === '';

export const text: Codec = {
  read: (t) => ({ value: empty(t) ? undefined : t.trim() }),
  write: (v) => (typeof v === 'string' ? v : ''),
};

/** A description: kept as it is (spaces are allowed); empty is the empty description. */
export const freeText: Codec = {
  read: (t) => ({ value: t }),
  write: (v) => (typeof v === 'string' ? v : ''),
};

export const int: Codec = {
  // A cell that is not an integer goes to the schema as text, which says what the field takes.
  read: (t) => ({ value: empty(t) ? undefined : /^\s*-?\d{1,15}\s*$/.test(t) ? Number(t) : t }),
  write: (v) => (typeof v === 'number' ? String(v) : ''),
};

/**
 * One of the source's words for a value of ours, read in any case, written as the source spells
 * it. `refused`: words of the source this OAM cannot honour, each with what to do instead.
 */
export function words<T>(
  map: readonly (readonly [string, T])[],
  refused: Readonly<Record<string, string>> = {},
): Codec {
  return {
    read(t, column) {
      if (empty(t)) return { value: undefined };
      const word = t.trim().toLowerCase();
      const known = map.find(([w]) => w.toLowerCase() === word);
      if (known) return { value: known[1] };
      const why = refused[word];
      if (why) return { problem: `${column} "${t.trim()}" cannot be honoured here: ${why}` };
      return {
        problem: `${column} must be one of: ${map.map(([w]) => w).join(', ')}, not "${t.trim()}"`,
      };
    },
    write: (v) => map.find(([, value]) => value === v)?.[0] ?? '',
  };
}

export const REJECT = words<Options['tcpRejectOption']>([
  ['tcpreset', 'tcpReset'],
  ['drop', 'drop'],
  ['icmphostunreachable', 'icmpHostUnreachable'],
  ['icmpportunreachable', 'icmpPortUnreachable'],
  ['icmpadminprohibited', 'icmpAdminProhibited'],
]);
export const SCTP_REJECT = words<Options['sctpRejectOption']>([
  ['drop', 'drop'],
  ['icmphostunreachable', 'icmpHostUnreachable'],
  ['icmpportunreachable', 'icmpPortUnreachable'],
  ['icmpadminprohibited', 'icmpAdminProhibited'],
]);
export const ENABLED = words<boolean>([
  ['enabled', true],
  ['disabled', false],
]);
export const MONITOR = words<Options['monitorProtocol']>([
  ['tcpconnectonly', 'tcpConnectOnly'],
  ['fullmonitoring', 'heartbeat'],
  ['disabled', 'disabled'],
]);
const INSTEAD = 'set the cell to hash or leastload and import again';
export const LOAD_ALGORITHM = words<TargetSet['algorithm']>(
  [
    ['hash', 'hash'],
    ['leastload', 'leastLoad'],
  ],
  {
    roundrobin: `this OAM has no round-robin algorithm (Least Load falls back to it below the Least Load threshold); ${INSTEAD}`,
    leasttraff: `this OAM has no least-traffic algorithm (Least Load weighs traffic by its MPS Factor); ${INSTEAD}`,
    leastconns: `this OAM has no least-connections algorithm (Least Load weighs connections by its Connection Count Factor); ${INSTEAD}`,
    leastloadtest: `this OAM has no test variant of Least Load; ${INSTEAD}`,
  },
);
/** PreferredIpfe 1–4: the four IPFEs in the order of the Options record (A1, A2, B1, B2). */
export const PREFERRED_IPFE = words<IpfeSlot>(IPFE_SLOTS.map((slot, i) => [String(i + 1), slot]));
export const PROTOCOLS = words<TargetSet['protocols']>([
  ['SCTP', 'sctp'],
  ['TCP', 'tcp'],
  ['SCTP_AND_TCP', 'both'],
]);
export const ZERO_ONE = words<boolean>([
  ['0', false],
  ['1', true],
]);

/** A column of the Options record: its position, its name, and our field (null: none here). */
export interface OptionColumn {
  at: number;
  name: string;
  field: string | null;
  codec: Codec;
  /** Why a column with no field here is not imported. */
  notHere?: string;
}

export const OPTION_COLUMNS: readonly OptionColumn[] = [
  ...IPFE_SLOTS.map((slot, i) => ({
    at: 2 + i,
    name: `Ipfe${i + 1}IpAddress`,
    field: `ipfe.${slot}.address`,
    codec: text,
  })),
  // Our mates' one channel (beacons and the connections they share) takes this port.
  { at: 6, name: 'StatSyncTcpPort', field: 'mateHeartbeatPort', codec: int },
  {
    at: 7,
    name: 'StateSyncReconnectS',
    field: null,
    codec: text,
    notHere: "this OAM's mates keep no TCP connection to reconnect (they beacon over UDP)",
  },
  { at: 8, name: 'RejectOption', field: 'tcpRejectOption', codec: REJECT },
  { at: 9, name: 'SctpRejectOption', field: 'sctpRejectOption', codec: SCTP_REJECT },
  // Decision 024: the Imbalance Detection Throughput Minimum, beside the Least Load threshold.
  { at: 10, name: 'OverloadStart', field: 'imbalanceMinPps', codec: int },
  { at: 11, name: 'LeastLoadStart', field: 'leastLoadThreshold', codec: int },
  {
    at: 12,
    name: 'GratuitousArpType',
    field: null,
    codec: text,
    notHere: 'this OAM has no choice of gratuitous ARP',
  },
  { at: 13, name: 'Accounting', field: 'accounting', codec: ENABLED },
  { at: 14, name: 'ConnectTryPort', field: 'monitoringPort', codec: int },
  { at: 15, name: 'ConnectTimeoutS', field: 'connectTimeoutS', codec: int },
  { at: 16, name: 'ConnectTryIntervalS', field: 'connectTryIntervalS', codec: int },
  { at: 17, name: 'MonitorProtocol', field: 'monitorProtocol', codec: MONITOR },
  { at: 18, name: 'PacketRateLimit', field: 'packetRateLimitPps', codec: int },
];

/** Our field of each of a Target Set's 13 columns. */
export const TSA_COLUMNS: Readonly<Record<TsaField, { field: string; codec: Codec }>> = {
  DeleteAge: { field: 'deleteAgeSeconds', codec: int },
  IPAddress: { field: 'primary.address', codec: text },
  IPSecondaryAddress: { field: 'secondary.address', codec: text },
  IPSecondaryPreferredIpfe: { field: 'secondary.activeIpfe', codec: PREFERRED_IPFE },
  LoadAlgorithm: { field: 'algorithm', codec: LOAD_ALGORITHM },
  PreferredIpfe: { field: 'primary.activeIpfe', codec: PREFERRED_IPFE },
  Protocols: { field: 'protocols', codec: PROTOCOLS },
  TsDisable: { field: 'disabled', codec: ZERO_ONE },
  AllowedDeviation: { field: 'leastLoad.allowedDeviation', codec: int },
  LoadFactorMPS: { field: 'leastLoad.mpsFactor', codec: int },
  LoadFactorConn: { field: 'leastLoad.connectionCountFactor', codec: int },
  PeerGroup: { field: 'leastLoad.peerNodeAware', codec: ENABLED },
  PeerGroupDelta: { field: 'leastLoad.peerNodeThreshold', codec: int },
};

/** The position of Target Set `n`'s column `field` in the Options record. */
export const tsaColumnAt = (n: number, field: TsaField) =>
  FIRST_TSA_COLUMN + (n - 1) * TSA_FIELDS.length + TSA_FIELDS.indexOf(field);

/** How a problem names a column: its position and the source's name for it. */
export const columnLabel = (at: number, name: string) => `${at} (${name})`;
export const tsaColumnLabel = (n: number, field: TsaField) =>
  columnLabel(tsaColumnAt(n, field), `Tsa${n}${field}`);

/** Decision 024: the IpfeListTsa record, one per server of a Target Set's IP list. */
export const LIST_COLUMNS = {
  TsaNumber: 2,
  IpAddress: 3,
  Weight: 4,
  SecondaryIpAddress: 5,
  Description: 6,
} as const;
export type ListColumn = keyof typeof LIST_COLUMNS;
/** The fewest columns a ListTsa record has (up to the weighting), and the most. */
export const LIST_RECORD_COLUMNS = {
  min: LIST_COLUMNS.Weight + 1,
  max: LIST_COLUMNS.Description + 1,
};
export const listColumnLabel = (column: ListColumn) => columnLabel(LIST_COLUMNS[column], column);

/** Decision 024, said in every preview of a file in this format. */
export const LIST_LAYOUT_NOTE = `The source's public pages do not show the columns of IpfeListTsa: this OAM reads one record per server, ${APPLICATION_TYPE},${LIST_KEYWORD},<Target Set number>,<IP address>,<weighting>[,<secondary IP address>[,<description>]] (decision 024; docs/migration.md)`;
