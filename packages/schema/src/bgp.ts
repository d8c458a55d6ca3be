import { z } from 'zod';
import { intInRange, ipAddress, typeError } from './fields.ts';
import { ASN, BFD_INTERVAL_MS, BFD_MULTIPLIER, BGP_PEERS } from './limits.ts';

/** An upstream router the IPFEs announce active-active TSAs to (decision 018). */
export const bgpPeerSchema = z.strictObject({
  address: ipAddress('BGP peer address'),
  asn: intInRange('BGP peer ASN', ASN),
});

/**
 * IPFE › Configuration › Options › BGP: the IPFEs' own AS number, the upstream routers, and the BFD
 * timers that bound how fast a router stops sending to a dead IPFE (interval × multiplier).
 * `null`: no BGP, so no Target Set can be served active-active.
 */
export const bgpSchema = z
  .strictObject({
    asn: intInRange('BGP ASN', ASN),
    peers: z
      .array(bgpPeerSchema, {
        error: typeError('BGP peers', 'BGP peers must be a list of routers'),
      })
      .min(BGP_PEERS.min, { error: 'BGP needs at least one peer (an upstream router)' })
      .max(BGP_PEERS.max, { error: `BGP peers: at most ${BGP_PEERS.max} upstream routers` }),
    bfdIntervalMs: intInRange('BFD interval (ms)', BFD_INTERVAL_MS).default(
      BFD_INTERVAL_MS.default,
    ),
    bfdMultiplier: intInRange('BFD multiplier', BFD_MULTIPLIER).default(BFD_MULTIPLIER.default),
  })
  .superRefine((bgp, ctx) => {
    const seen = new Set<string>();
    bgp.peers.forEach((peer, i) => {
      if (seen.has(peer.address)) {
        ctx.addIssue({
          code: 'custom',
          path: ['peers', i, 'address'],
          message: `${peer.address} is listed twice`,
        });
      }
      seen.add(peer.address);
    });
  });

export type Bgp = z.output<typeof bgpSchema>;
export type BgpPeer = z.output<typeof bgpPeerSchema>;
