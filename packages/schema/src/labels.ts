import type { FAMILIES, IpfeSlot } from './limits.ts';

/** An address family as pages and messages name it: "IPv4", "IPv6". */
export const familyLabel = (family: (typeof FAMILIES)[number]) =>
  family === 'ipv4' ? 'IPv4' : 'IPv6';

/** An IPFE node as the pages name it, after the source product's: "IPFE-A1". */
export const slotLabel = (slot: IpfeSlot) => `IPFE-${slot}`;
