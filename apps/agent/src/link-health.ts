import net from 'node:net';

/**
 * The TSA-facing link's health (decision 028), decided here and nowhere else. The link is the
 * agent's `--manage-addresses` device: clients reach the TSAs there. It is down while its carrier
 * is lost (the device's operstate is neither `up` nor `unknown`, or the device is gone), or while
 * one of its next hops has missed `misses` probes in a row (an ARP request for IPv4, a neighbour
 * solicitation for IPv6); a next hop that answers once is back. The agent feeds the events (the
 * operstate, read every tick; each probe's outcome) and carries out the actions: Ownership hears
 * that this node cannot serve (or can again), the mate hears it from a beacon sent at once, and
 * alarm 5153 says why while it lasts.
 */
export interface NextHopHealth {
  readonly address: string;
  /** Probes missed in a row since its last answer. */
  readonly missed: number;
}

export interface LinkHealth {
  readonly device: string;
  /** The device's operstate as last read ('' when the device is gone); null before the first read. */
  readonly operstate: string | null;
  readonly nextHops: readonly NextHopHealth[];
  /** How many probes in a row a next hop may miss before the link is down. */
  readonly misses: number;
  /** Why this node cannot serve through the link now, or null while it can. */
  readonly down: string | null;
}

export type LinkEvent =
  /** /sys/class/net/DEV/operstate as read ('' when the device is gone). */
  | { type: 'operstate'; state: string }
  /** The next hops to probe (from --next-hop, or the device's default routes). */
  | { type: 'nextHops'; addresses: readonly string[] }
  /** A probe of a next hop ended: answered within the interval, or not. */
  | { type: 'probe'; address: string; answered: boolean };

export type LinkAction =
  /** The link went down: this node cannot serve through it (the reason is `state.down`). */
  | { do: 'down' }
  /** The link is back: this node can serve again (after the hold-off, as after a return). */
  | { do: 'up' };

/** Operstates of a link that carries traffic (`unknown`: a device that reports no carrier state). */
const CARRYING = new Set(['up', 'unknown']);

export function initialLinkHealth(device: string, misses: number): LinkHealth {
  return { device, operstate: null, nextHops: [], misses, down: null };
}

/** Why the link cannot carry the TSAs' traffic, or null. */
function downReason(state: Omit<LinkHealth, 'down'>): string | null {
  const reasons: string[] = [];
  if (state.operstate !== null && !CARRYING.has(state.operstate))
    reasons.push(
      state.operstate === ''
        ? `${state.device} is gone`
        : `no carrier on ${state.device} (operstate ${state.operstate})`,
    );
  for (const hop of state.nextHops)
    if (hop.missed >= state.misses)
      reasons.push(
        `next hop ${hop.address} answered none of the last ${state.misses} ${
          net.isIPv6(hop.address) ? 'neighbour solicitations' : 'ARP requests'
        }`,
      );
  return reasons.length > 0 ? reasons.join('; ') : null;
}

export function next(
  state: LinkHealth,
  event: LinkEvent,
): { state: LinkHealth; actions: LinkAction[] } {
  let changed: Omit<LinkHealth, 'down'>;
  switch (event.type) {
    case 'operstate':
      changed = { ...state, operstate: event.state };
      break;
    case 'nextHops': {
      const missed = new Map(state.nextHops.map((h) => [h.address, h.missed]));
      changed = {
        ...state,
        nextHops: [...new Set(event.addresses)].map((address) => ({
          address,
          missed: missed.get(address) ?? 0,
        })),
      };
      break;
    }
    case 'probe':
      changed = {
        ...state,
        nextHops: state.nextHops.map((h) =>
          h.address !== event.address
            ? h
            : {
                address: h.address,
                missed: event.answered ? 0 : Math.min(h.missed + 1, state.misses),
              },
        ),
      };
      break;
  }
  const down = downReason(changed);
  const actions: LinkAction[] =
    (down === null) === (state.down === null) ? [] : [{ do: down === null ? 'up' : 'down' }];
  return { state: { ...changed, down }, actions };
}
