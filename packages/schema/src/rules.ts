import type { Configuration } from './configuration.ts';
import type { ConfigIssue } from './issues.ts';
import { joinPath, USERS_PLACEHOLDER } from './issues.ts';
import {
  APP_SERVERS_MAX,
  DELETE_AGE_S,
  IPFE_SLOTS,
  PEER_NODE_GROUPS_MAX,
  XSI_NETWORKS_MAX,
  type IpfeSlot,
} from './limits.ts';
import { familyLabel } from './labels.ts';
import { MESSAGES } from './messages.ts';
import { cidrContains, cidrsOverlap, ipFamily, isUnusableUnicast } from './net.ts';
import { nonHostRole } from './network.ts';
import type { TargetSet } from './target-set.ts';

/**
 * The rules that span entities (SPEC §2), as one function over the whole configuration. Each
 * issue names the field it belongs to; where a rule ties two entities, the issue stands on the
 * entity that refers (the Target Set) and `cause` points at the entity that can cure it.
 */
export function checkConfiguration(config: Configuration): ConfigIssue[] {
  const { issues, add, warn } = collector();
  checkOptions(config, add);
  checkXsiNetworks(config, add);
  checkAppServers(config, add);
  checkPeerNodeGroups(config, add);
  config.targetSets.forEach((ts, i) => checkTargetSet(config, i, ts, add, warn));
  return issues;
}

/**
 * The issues that `checkConfiguration` puts on the Target Set at `index` (paths under
 * `targetSets.<index>.`), in the same order, without checking the rest of the configuration:
 * what a form editing that one Target Set shows as it is typed.
 */
export function checkTargetSetIn(config: Configuration, index: number): ConfigIssue[] {
  const ts = config.targetSets[index];
  if (!ts) throw new RangeError(`the configuration has no Target Set at index ${index}`);
  const { issues, add, warn } = collector();
  checkTargetSet(config, index, ts, add, warn);
  return issues;
}

function collector() {
  const issues: ConfigIssue[] = [];
  const add: Add = (path, message, cause, causeMessage, where) =>
    issues.push({
      path,
      message,
      severity: 'error',
      ...(cause ? { cause } : {}),
      ...(causeMessage ? { causeMessage } : {}),
      ...where,
    });
  const warn: Warn = (path, message) => issues.push({ path, message, severity: 'warning' });
  return { issues, add, warn };
}

type Add = (
  path: string,
  message: string,
  cause?: string,
  causeMessage?: string,
  where?: Pick<ConfigIssue, 'valuePath' | 'pairedWith'>,
) => void;
type Warn = (path: string, message: string) => void;

/** An IPFE node inside a message: "IPFE A1". */
const slotInText = (slot: IpfeSlot) => `IPFE ${slot}`;

/**
 * An address of a Target Set or an application server must be a host address of an XSI network
 * (SPEC §2.2, §2.5): inside one, and for IPv4 neither the network's own nor its broadcast address.
 */
function checkOnXsiNetwork(config: Configuration, path: string, address: string, add: Add) {
  const net = config.xsiNetworks.find((n) => cidrContains(n.cidr, address));
  if (!net) {
    add(
      path,
      `${address} ${MESSAGES.notOnXsi}`,
      'xsiNetworks',
      `${address} must stay on an XSI network: it is an address of ${USERS_PLACEHOLDER}`,
    );
    return;
  }
  const role = nonHostRole(net.cidr, address);
  if (role) {
    add(
      path,
      `${address} is the ${role} address of XSI network ${net.name} (${net.cidr}), not a host address`,
      'xsiNetworks',
      `${address} would be the ${role} address of XSI network ${net.name} (${net.cidr}): it is an address of ${USERS_PLACEHOLDER}`,
    );
  }
}

/** Flags the second and later occurrences of each key. */
function flagDuplicates<T>(
  items: T[],
  key: (item: T) => string,
  report: (index: number, firstIndex: number) => void,
) {
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else report(i, seen);
  });
}

function checkOptions(config: Configuration, add: Add) {
  const addresses = new Map<string, IpfeSlot>();
  for (const slot of IPFE_SLOTS) {
    const node = config.options.ipfe[slot];
    if (!node) continue;
    const path = joinPath('options.ipfe', slot, 'address');
    const other = addresses.get(node.address);
    if (other) add(path, `${node.address} is already the address of ${slotInText(other)}`);
    else addresses.set(node.address, slot);
    if (isUnusableUnicast(node.address)) add(path, `${node.address} is not a unicast address`);
  }
}

function checkXsiNetworks(config: Configuration, add: Add) {
  const nets = config.xsiNetworks;
  nets.forEach((net, i) => {
    if (i >= XSI_NETWORKS_MAX)
      add(`xsiNetworks.${i}.name`, `At most ${XSI_NETWORKS_MAX} XSI networks`);
  });
  flagDuplicates(
    nets,
    (n) => n.name.toLowerCase(),
    (i) => add(`xsiNetworks.${i}.name`, `An XSI network named ${nets[i]!.name} already exists`),
  );
  nets.forEach((net, i) => {
    for (let j = 0; j < i; j++) {
      const other = nets[j]!;
      if (cidrsOverlap(net.cidr, other.cidr)) {
        add(
          `xsiNetworks.${i}.cidr`,
          `${net.cidr} overlaps XSI network ${other.name} (${other.cidr})`,
        );
        break;
      }
    }
  });
}

function checkAppServers(config: Configuration, add: Add) {
  const servers = config.appServers;
  servers.forEach((s, i) => {
    if (i >= APP_SERVERS_MAX) {
      add(
        `appServers.${i}.name`,
        `At most ${APP_SERVERS_MAX} application servers (one Initiator Port Range each)`,
      );
    }
  });
  flagDuplicates(
    servers,
    (s) => s.name.toLowerCase(),
    (i) =>
      add(`appServers.${i}.name`, `An application server named ${servers[i]!.name} already exists`),
  );
  flagDuplicates(
    servers,
    (s) => `${s.initiatorPortRange.start}-${s.initiatorPortRange.end}`,
    (i, first) =>
      add(
        `appServers.${i}.initiatorPortRange`,
        `Initiator Port Range is already allocated to ${servers[first]!.name}: leave it out and a free one is allocated`,
      ),
  );
  const owner = new Map<string, string>();
  const tsaUsers = tsaAddresses(config);
  servers.forEach((server, i) => {
    server.addresses.forEach((address, a) => {
      const path = `appServers.${i}.addresses.${a}`;
      if (server.addresses.indexOf(address) !== a) {
        add(path, `${address} is listed twice`);
        return;
      }
      const other = owner.get(address);
      if (other) add(path, `${address} is already an address of application server ${other}`);
      else owner.set(address, server.name);
      if (isUnusableUnicast(address)) add(path, `${address} is not a unicast address`);
      checkOnXsiNetwork(config, path, address, add);
      const tsa = tsaUsers.get(address);
      if (tsa) add(path, `${address} is already the ${tsa}`);
    });
  });
}

function checkPeerNodeGroups(config: Configuration, add: Add) {
  const groups = config.peerNodeGroups;
  groups.forEach((g, i) => {
    if (i >= PEER_NODE_GROUPS_MAX) {
      add(`peerNodeGroups.${i}.name`, `At most ${PEER_NODE_GROUPS_MAX} peer node groups`);
    }
    flagDuplicates(
      g.members,
      (m) => m,
      (m) => add(`peerNodeGroups.${i}.members.${m}`, `${g.members[m]} is listed twice`),
    );
  });
  flagDuplicates(
    groups,
    (g) => g.name.toLowerCase(),
    (i) =>
      add(`peerNodeGroups.${i}.name`, `A peer node group named ${groups[i]!.name} already exists`),
  );
}

/** Every TSA address with a description of its user ("Target Set 2 primary address"). */
function tsaAddresses(config: Configuration): Map<string, string> {
  const users = new Map<string, string>();
  for (const ts of config.targetSets) {
    users.set(ts.primary.address, `Target Set ${ts.number} primary address`);
    if (ts.secondary) users.set(ts.secondary.address, `Target Set ${ts.number} secondary address`);
  }
  return users;
}

function checkTargetSet(config: Configuration, i: number, ts: TargetSet, add: Add, warn: Warn) {
  const at = (...parts: (string | number)[]) => joinPath('targetSets', i, ...parts);
  const earlier = config.targetSets.slice(0, i);
  const others = config.targetSets.filter((_, j) => j !== i);

  if (earlier.some((o) => o.number === ts.number)) {
    add(at('number'), `Target Set ${ts.number} already exists`);
  }

  checkPublicAddress(config, ts, 'primary', at, add);
  if (ipFamily(ts.primary.address) !== ts.family) {
    add(
      at('primary.address'),
      `${ts.primary.address} is not an ${familyLabel(ts.family)} address (this is an ${familyLabel(ts.family)} Target Set)`,
    );
  }
  if (ts.secondary) {
    checkPublicAddress(config, ts, 'secondary', at, add);
    if (ts.secondary.address === ts.primary.address) {
      add(at('secondary.address'), 'The secondary address must differ from the primary address');
    }
    if (ts.serving === 'activeStandby' && ts.secondary.activeIpfe === ts.primary.activeIpfe) {
      warn(at('secondary.activeIpfe'), MESSAGES.secondaryShouldComplement);
    }
  }

  if (ts.serving === 'activeActive') checkActiveActive(config, ts, at, add);

  // Below the range is an error of the field already, not also inadvisable.
  if (ts.deleteAgeSeconds >= DELETE_AGE_S.min && ts.deleteAgeSeconds < DELETE_AGE_S.default)
    warn(at('deleteAgeSeconds'), MESSAGES.deleteAgeInadvisable);
  if (ts.algorithm === 'leastLoad' && config.options.monitorProtocol !== 'heartbeat') {
    add(
      at('algorithm'),
      MESSAGES.leastLoadNeedsHeartbeat,
      'options.monitorProtocol',
      `Only Heartbeat monitoring supports Least Load, the algorithm of ${USERS_PLACEHOLDER}`,
    );
  }

  checkIpList(config, ts, at, add);

  const listed = new Set(ts.servers.map((s) => s.address));
  for (const other of others) {
    const otherList = new Set(other.servers.map((s) => s.address));
    const shared = [...listed].filter((a) => otherList.has(a));
    const identical = shared.length === listed.size && shared.length === otherList.size;
    if (shared.length > 0 && !identical) {
      add(
        at('servers'),
        `The IP list partly overlaps the IP list of Target Set ${other.number} (shared: ${shared.join(', ')}); two lists must be identical or disjoint`,
        undefined,
        undefined,
        {
          valuePath: at(
            'servers',
            ts.servers.findIndex((s) => s.address === shared[0]),
            'address',
          ),
          pairedWith: joinPath('targetSets', config.targetSets.indexOf(other)),
        },
      );
    }
  }
}

/** Decision 018: an active-active group's IPFEs are configured, and BGP is there to announce. */
function checkActiveActive(
  config: Configuration,
  ts: TargetSet,
  at: (...parts: (string | number)[]) => string,
  add: Add,
) {
  (ts.activeActiveIpfes ?? []).forEach((slot, k) => {
    if (config.options.ipfe[slot]) return;
    add(
      at('activeActiveIpfes', k),
      `${slotInText(slot)} is not configured. ${MESSAGES.configureIpfe}`,
      `options.ipfe.${slot}.address`,
      `${slotInText(slot)} serves ${USERS_PLACEHOLDER} active-active`,
    );
  });
  if (config.options.bgp === null) {
    add(
      at('serving'),
      MESSAGES.activeActiveNeedsBgp,
      'options.bgp',
      `BGP announces ${USERS_PLACEHOLDER}, served active-active`,
    );
  }
}

function checkPublicAddress(
  config: Configuration,
  ts: TargetSet,
  which: 'primary' | 'secondary',
  at: (...parts: (string | number)[]) => string,
  add: Add,
) {
  const entry = ts[which];
  if (!entry) return;
  const { address, activeIpfe } = entry;
  const path = at(which, 'address');
  if (isUnusableUnicast(address)) add(path, `${address} is not a unicast address`);
  checkOnXsiNetwork(config, path, address, add);
  for (const other of config.targetSets) {
    if (other === ts) continue;
    if (other.primary.address === address || other.secondary?.address === address) {
      add(path, `${address} is already used by Target Set ${other.number}`);
    }
  }
  const usedBy = `${address} is already used by ${USERS_PLACEHOLDER}`;
  const server = config.appServers.find((s) => s.addresses.includes(address));
  if (server)
    add(
      path,
      `${address} is an address of application server ${server.name}`,
      'appServers',
      usedBy,
    );
  const ipfe = IPFE_SLOTS.find((slot) => config.options.ipfe[slot]?.address === address);
  if (ipfe)
    add(
      path,
      `${address} is the address of ${slotInText(ipfe)}`,
      `options.ipfe.${ipfe}.address`,
      usedBy,
    );
  // Active-active (decision 018): the Active IPFE fields are ignored, so not checked.
  if (ts.serving === 'activeStandby' && !config.options.ipfe[activeIpfe]) {
    add(
      at(which, 'activeIpfe'),
      `${slotInText(activeIpfe)} is not configured. ${MESSAGES.configureIpfe}`,
      `options.ipfe.${activeIpfe}.address`,
      `${slotInText(activeIpfe)} is the Active IPFE of ${USERS_PLACEHOLDER}`,
    );
  }
}

function checkIpList(
  config: Configuration,
  ts: TargetSet,
  at: (...parts: (string | number)[]) => string,
  add: Add,
) {
  const family = ts.family;
  const secondaryFamily = ts.secondary ? ipFamily(ts.secondary.address) : null;
  flagDuplicates(
    ts.servers,
    (s) => s.address,
    (r) => add(at('servers', r, 'address'), `${ts.servers[r]!.address} is listed twice`),
  );
  ts.servers.forEach((row, r) => {
    const server = config.appServers.find((s) => s.addresses.includes(row.address));
    if (!server) {
      add(
        at('servers', r, 'address'),
        `${row.address} is not an application server address`,
        'appServers',
        `${row.address} is in use by ${USERS_PLACEHOLDER}`,
      );
    }
    if (ipFamily(row.address) !== family) {
      add(
        at('servers', r, 'address'),
        `${row.address} is not an ${familyLabel(family)} address, like the Target Set address`,
      );
    }
    const secondaryPath = at('servers', r, 'secondaryAddress');
    if (!ts.secondary) {
      if (row.secondaryAddress !== null) {
        add(secondaryPath, 'Leave empty: the Target Set has no secondary address');
      }
      return;
    }
    if (row.secondaryAddress === null) {
      const seconds = (server?.addresses ?? []).filter(
        (a) => a !== row.address && (!secondaryFamily || ipFamily(a) === secondaryFamily),
      );
      if (server && seconds.length === 0) {
        const lacks =
          server.addresses.length === 1
            ? 'no second address'
            : `no ${familyLabel(secondaryFamily ?? family)} address`;
        add(
          secondaryPath,
          `Required: the Target Set has a secondary address, and application server ${server.name} has ${lacks}: add one under Network › Application Servers`,
        );
      } else {
        add(secondaryPath, 'Required: the Target Set has a secondary address');
      }
      return;
    }
    if (row.secondaryAddress === row.address) {
      add(secondaryPath, 'The secondary IP address must differ from the IP address');
    } else if (server && !server.addresses.includes(row.secondaryAddress)) {
      add(
        secondaryPath,
        `${row.secondaryAddress} is not an address of application server ${server.name}`,
        'appServers',
        `${row.secondaryAddress} is in use by ${USERS_PLACEHOLDER}`,
      );
    } else if (
      !server &&
      !config.appServers.some((s) => s.addresses.includes(row.secondaryAddress!))
    ) {
      add(
        secondaryPath,
        `${row.secondaryAddress} is not an application server address`,
        'appServers',
        `${row.secondaryAddress} is in use by ${USERS_PLACEHOLDER}`,
      );
    }
    if (secondaryFamily && ipFamily(row.secondaryAddress) !== secondaryFamily) {
      add(
        secondaryPath,
        `${row.secondaryAddress} is not an ${familyLabel(secondaryFamily)} address, like the secondary Target Set address`,
      );
    }
  });
  if (!ts.disabled && ts.servers.length > 0 && ts.servers.every((s) => s.weight === 0)) {
    add(at('servers'), MESSAGES.allWeightsZero);
  }
}
