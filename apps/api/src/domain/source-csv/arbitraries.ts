import fc from 'fast-check';
import {
  IMBALANCE_MIN_PPS,
  PACKET_RATE_LIMIT_PPS,
  SCTP_REJECT_OPTIONS,
  TCP_REJECT_OPTIONS,
  emptyConfiguration,
  normalizeTargetSet,
  portRangeOfSlice,
  type Configuration,
} from '@ipfe/schema';

/** Test data: random valid configurations, for the property tests of both file formats. */

const descriptionText = fc.stringMatching(/^[A-Za-z0-9 ._-]{0,20}$/);

/** A valid configuration: servers split into disjoint Target Set lists, options at random. */
export const configuration = fc
  .record({
    slots: fc.subarray(['A1', 'A2', 'B1', 'B2'] as const, { minLength: 1 }),
    agentPort: fc.integer({ min: 1, max: 65535 }),
    mateIntervalMs: fc.integer({ min: 20, max: 1000 }),
    tcpRejectOption: fc.constantFrom(...TCP_REJECT_OPTIONS),
    sctpRejectOption: fc.constantFrom(...SCTP_REJECT_OPTIONS),
    imbalanceMinPps: fc.integer(IMBALANCE_MIN_PPS),
    accounting: fc.boolean(),
    packetRateLimitPps: fc.integer(PACKET_RATE_LIMIT_PPS),
    forwardedPorts: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), {
      minLength: 1,
      maxLength: 5,
    }),
    connectTimeoutS: fc.integer({ min: 2, max: 30 }),
    leastLoadThreshold: fc.integer({ min: 0, max: 1_000_000 }),
    serverCount: fc.integer({ min: 1, max: 8 }),
    dualStack: fc.boolean(),
    peerMembers: fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }),
    bgp: fc.option(
      fc.record({
        asn: fc.integer({ min: 1, max: 4294967295 }),
        peers: fc.uniqueArray(fc.integer({ min: 1, max: 254 }), { minLength: 1, maxLength: 4 }),
        bfdIntervalMs: fc.integer({ min: 50, max: 1000 }),
        bfdMultiplier: fc.integer({ min: 2, max: 10 }),
      }),
    ),
    targetSets: fc.array(
      fc.record({
        number: fc.integer({ min: 1, max: 32 }),
        ipv6: fc.boolean(),
        protocols: fc.constantFrom('tcp', 'sctp', 'both'),
        disabled: fc.boolean(),
        initiatorSupport: fc.boolean(),
        deleteAgeSeconds: fc.integer({ min: 10, max: 3_110_400 }),
        algorithm: fc.constantFrom('hash', 'leastLoad'),
        mpsFactor: fc.integer({ min: 0, max: 100 }),
        connectionCountFactor: fc.integer({ min: 1, max: 100 }),
        allowedDeviation: fc.integer({ min: 0, max: 50 }),
        peerNodeAware: fc.boolean(),
        peerNodeThreshold: fc.integer({ min: 0, max: 10 }),
        weights: fc.array(fc.integer({ min: 1, max: 65535 }), { minLength: 1, maxLength: 3 }),
        descriptions: fc.array(descriptionText, { minLength: 3, maxLength: 3 }),
        activeActive: fc.boolean(),
      }),
      { maxLength: 4 },
    ),
  })
  .map((r): Configuration => {
    const ipfe = { A1: null, A2: null, B1: null, B2: null } as Configuration['options']['ipfe'];
    r.slots.forEach((slot, i) => {
      ipfe[slot] = { address: `127.250.0.${i + 1}`, agentPort: r.agentPort };
    });
    const appServers = Array.from({ length: r.serverCount }, (_, i) => ({
      name: `mp${i + 1}`,
      addresses: r.dualStack ? [`127.1.1.${i + 1}`, `2001:db8::${i + 1}`] : [`127.1.1.${i + 1}`],
      initiatorPortRange: portRangeOfSlice(i * 3),
    }));
    let next = 0;
    const numbers = new Set<number>();
    const targetSets = r.targetSets.flatMap((ts) => {
      const count = Math.min(ts.weights.length, r.serverCount - next);
      if (count === 0 || numbers.has(ts.number)) return [];
      numbers.add(ts.number);
      const ipv6 = ts.ipv6 && r.dualStack;
      const servers = ts.weights.slice(0, count).map((weight, k) => {
        const server = appServers[next + k]!;
        return {
          address: server.addresses[ipv6 ? 1 : 0]!,
          secondaryAddress: null,
          description: ts.descriptions[k]!,
          weight,
        };
      });
      next += count;
      // Active-active (decision 018) needs BGP, two configured IPFEs and Hash.
      const activeActive = ts.activeActive && r.bgp !== null && r.slots.length >= 2;
      return [
        normalizeTargetSet({
          number: ts.number,
          family: ipv6 ? 'ipv6' : 'ipv4',
          protocols: ts.protocols,
          disabled: ts.disabled,
          initiatorSupport: ts.initiatorSupport,
          deleteAgeSeconds: ts.deleteAgeSeconds,
          algorithm: activeActive ? 'hash' : ts.algorithm,
          leastLoad: {
            mpsFactor: ts.mpsFactor,
            connectionCountFactor: ts.connectionCountFactor,
            allowedDeviation: ts.allowedDeviation,
            peerNodeAware: ts.peerNodeAware,
            peerNodeThreshold: ts.peerNodeThreshold,
          },
          primary: {
            address: ipv6 ? `2001:db8::1:${ts.number}` : `127.1.0.${ts.number}`,
            activeIpfe: r.slots[0]!,
          },
          secondary: null,
          ...(activeActive
            ? { serving: 'activeActive' as const, activeActiveIpfes: [...r.slots] }
            : { serving: 'activeStandby' as const }),
          servers,
        }),
      ];
    });
    return {
      options: {
        ...emptyConfiguration().options,
        ipfe,
        mateIntervalMs: r.mateIntervalMs,
        mateTimeoutMs: r.mateIntervalMs * 3,
        tcpRejectOption: r.tcpRejectOption,
        sctpRejectOption: r.sctpRejectOption,
        imbalanceMinPps: r.imbalanceMinPps,
        accounting: r.accounting,
        packetRateLimitPps: r.packetRateLimitPps,
        forwardedPorts: r.forwardedPorts,
        connectTimeoutS: r.connectTimeoutS,
        leastLoadThreshold: r.leastLoadThreshold,
        bgp: r.bgp && {
          asn: r.bgp.asn,
          peers: r.bgp.peers.map((p, i) => ({ address: `192.0.2.${p}`, asn: 64512 + i })),
          bfdIntervalMs: r.bgp.bfdIntervalMs,
          bfdMultiplier: r.bgp.bfdMultiplier,
        },
      },
      xsiNetworks: [
        { name: 'xsi4', cidr: '127.1.0.0/16' },
        { name: 'xsi6', cidr: '2001:db8::/64' },
      ],
      appServers,
      peerNodeGroups:
        r.peerMembers.length > 0
          ? [{ name: 'peers', members: r.peerMembers.map((m) => `10.0.${m}.0/24`) }]
          : [],
      targetSets,
    };
  });
