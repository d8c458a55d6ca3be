/** Messages the spec words exactly; the GUI shows them as they are. */
export const MESSAGES = {
  deleteAgeInadvisable: 'Reducing Delete Age below the default (600 s) is inadvisable',
  notOnXsi: 'must be on the XSI network',
  allWeightsZero: 'at least one server needs a non-zero weight',
  secondaryShouldComplement:
    'should complement the Active IPFE to give SCTP dual-homed traffic an alternative path',
  configureIpfe: 'Configure the IPFE address under IPFE › Configuration › Options',
  readOnly: 'This field cannot be changed',
  connectTimeoutTooShort: '1 s is refused (too short for reliable detection)',
  factorsBothZero: 'MPS Factor and Connection Count Factor cannot both be 0',
  leastLoadNeedsHeartbeat:
    'Least Load needs Application Server Monitoring set to Heartbeat (IPFE › Configuration › Options)',
  leastLoadNotActiveActive:
    'Least Load is not available with Active-Active serving (it needs one IPFE’s view of the connections): choose Hash',
  activeActiveIpfesTooFew: 'Active-Active needs at least 2 IPFEs',
  activeActiveIpfesTooMany: 'Active-Active takes at most 4 IPFEs (the four slots)',
  activeActiveIpfesOnlyWithActiveActive:
    'Active-Active IPFEs are only allowed when Serving is Active-Active',
  activeActiveNeedsBgp: 'Active-Active needs BGP configured under IPFE › Configuration › Options',
} as const;

/**
 * The GUI's name of each field, by its path within its entity, with the other names messages use
 * for it (a field schema's own label: "Target Set number" for the field the GUI calls "TS Number").
 */
const FIELD_NAMES: Record<string, readonly string[]> = {
  // IPFE › Configuration › Options
  mateHeartbeatPort: ['Mate heartbeat port'],
  mateIntervalMs: ['Mate beacon interval (ms)'],
  mateTimeoutMs: ['Mate timeout (ms)'],
  tcpRejectOption: ['TCP reject option'],
  sctpRejectOption: ['SCTP reject option'],
  forwardedPorts: ['Forwarded ports'],
  monitorProtocol: ['Monitoring protocol'],
  monitoringPort: ['Monitoring port'],
  connectTimeoutS: ['Connect timeout (s)'],
  connectTryIntervalS: ['Connect try interval (s)'],
  leastLoadThreshold: ['Least Load threshold (new connections/s)'],
  imbalanceThresholdPct: ['Imbalance threshold (%)'],
  imbalanceMinPps: ['Imbalance detection throughput minimum (packets/s)'],
  accounting: ['Accounting'],
  packetRateLimitPps: ['Global packet rate limit (packets/s per port)'],
  // Target Sets [Insert] / [Edit]
  number: ['TS Number', 'Target Set number'],
  family: ['Address family', 'Family'],
  protocols: ['Protocols'],
  disabled: ['Disable'],
  initiatorSupport: ['Initiator Connection Support'],
  deleteAgeSeconds: ['Delete Age (s)'],
  algorithm: ['Load Balance Algorithm'],
  leastLoad: ['Least Load parameters'],
  'leastLoad.mpsFactor': ['MPS Factor'],
  'leastLoad.connectionCountFactor': ['Connection Count Factor'],
  'leastLoad.allowedDeviation': ['Allowed Deviation'],
  'leastLoad.peerNodeAware': ['Peer Node Aware Least Load'],
  'leastLoad.peerNodeThreshold': ['Peer Node Group Distribution Threshold'],
  primary: ['Primary Public IP Address'],
  'primary.address': ['Primary Public IP Address', 'Address'],
  'primary.activeIpfe': ['Active IPFE'],
  secondary: ['Secondary Public IP Address'],
  'secondary.address': ['Secondary Address'],
  'secondary.activeIpfe': ['Active IPFE for secondary address'],
  servers: ['Target Set IP List'],
  serving: ['Serving'],
  activeActiveIpfes: ['Active-Active IPFEs', 'Active-Active IPFE', 'Active-Active'],
  // IPFE › Configuration › Options › BGP
  bgp: ['BGP'],
  'bgp.asn': ['BGP ASN'],
  'bgp.peers': ['BGP peers'],
  'bgp.bfdIntervalMs': ['BFD interval (ms)'],
  'bgp.bfdMultiplier': ['BFD multiplier'],
  // Network › XSI Networks, Application Servers, Peer Node Groups; Users
  name: [
    'Name',
    'XSI network name',
    'Application server name',
    'Peer node group name',
    'User name',
  ],
  cidr: ['Network (CIDR)', 'Network'],
  addresses: ['Addresses'],
  'addresses.0': ['Address'],
  'addresses.1': ['Secondary address'],
  members: ['Members'],
  password: ['Password'],
  role: ['Role'],
};

/** The columns of the Target Set IP List, as its rows' controls are named ("Weighting, row 2"). */
const ROW_FIELDS: Record<string, string> = {
  address: 'IP Address',
  secondaryAddress: 'Secondary IP Address',
  description: 'Description',
  weight: 'Weighting',
};

interface FieldName {
  /** As the GUI names it: "Weighting, row 2". */
  label: string;
  /** Other names a message may start with. */
  aliases: readonly string[];
  /**
   * What tells this field apart when a message names it by a shorter name: the row ("IP List
   * row 2" for "Weighting must be …"), the IPFE ("IPFE A1" for "Agent port must be …").
   */
  context?: string;
}

/** A record's own entry for a key a user may have typed, never a member of `Object.prototype`. */
function ownEntry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function fieldName(path: string): FieldName | null {
  const names = ownEntry(FIELD_NAMES, path);
  if (path === 'primary.address') return { label: names![0]!, aliases: names!, context: names![0] };
  if (names) return { label: names[0]!, aliases: names };
  const ipfe = /^ipfe\.(A1|A2|B1|B2)(?:\.(address|agentPort))?$/.exec(path);
  if (ipfe) {
    const slot = `IPFE ${ipfe[1]}`;
    if (ipfe[2] === 'address')
      return { label: `${slot} address`, aliases: ['IPFE address'], context: slot };
    if (ipfe[2] === 'agentPort')
      return { label: `${slot} agent port`, aliases: ['Agent port'], context: slot };
    return { label: slot, aliases: [slot] };
  }
  const row = /^servers\.(\d+)(?:\.(\w+))?$/.exec(path);
  if (row) {
    const where = `IP List row ${Number(row[1]) + 1}`;
    if (!row[2]) return { label: where, aliases: [] };
    const column = ownEntry(ROW_FIELDS, row[2]);
    if (!column) return null;
    return { label: `${column}, row ${Number(row[1]) + 1}`, aliases: [column], context: where };
  }
  const peer = /^bgp\.peers\.(\d+)(?:\.(address|asn))?$/.exec(path);
  if (peer) {
    const where = `BGP peer ${Number(peer[1]) + 1}`;
    if (!peer[2]) return { label: where, aliases: [] };
    const column = peer[2] === 'address' ? 'address' : 'ASN';
    return {
      label: `${where} ${column}`,
      aliases: [`BGP peer ${column}`],
      context: where,
    };
  }
  const listed = /^(forwardedPorts|members|activeActiveIpfes)\.(\d+)$/.exec(path);
  if (listed) {
    const list = FIELD_NAMES[listed[1]!]![0]!;
    const where = listed[1] === 'members' ? `Members, line ${Number(listed[2]) + 1}` : list;
    return { label: where, aliases: [list], context: listed[1] === 'members' ? where : undefined };
  }
  return null;
}

/** The name the GUI gives the field at a path within its entity ("servers.1.weight" → "Weighting, row 2"). */
export function fieldLabel(path: string): string | null {
  return fieldName(path)?.label ?? null;
}

/** "Delete Age (s)" → "delete age": what a message that names the field starts with. */
const stem = (name: string) =>
  name
    .replace(/\s*\([^)]*\)/g, '')
    .trim()
    .toLowerCase();

function namesField(message: string, names: readonly string[]): boolean {
  const text = message.toLowerCase().replace(/^the /, '');
  return names.some((name) => {
    const s = stem(name);
    return text.startsWith(s) || (s.endsWith('s') && text.startsWith(s.slice(0, -1)));
  });
}

/**
 * A field error as one line that reads on its own, for a list of problems or a one-line summary:
 * the field as the GUI names it, then the message; a message that already starts with the field's
 * name is not told it twice ("Delete Age (s) must be …"), only what tells the field apart
 * ("IP List row 2: Weighting must be …").
 * An unknown path is left out (the message is all there is); it stays in `path` for programs.
 */
export function issueText(issue: { path: string; message: string }): string {
  const name = fieldName(issue.path);
  if (!name) return issue.message;
  if (namesField(issue.message, [name.label, ...name.aliases])) {
    return name.context ? `${name.context}: ${issue.message}` : issue.message;
  }
  return `${name.label}: ${issue.message}`;
}
