import { fmix32, mix32 } from './hash.ts';
import { maglevLookup, NO_SERVER, type MaglevTable } from './maglev.ts';
import {
  OVERFLOW_BY_CODE,
  OWN_NEW_ALLOW,
  OWN_NEW_BY_CODE,
  OWN_NEW_LAST_RESORT,
  STATE_CODE,
} from './server-state.ts';
import type { Member } from './target-set.ts';

/**
 * Hash (SPEC §3.2): the position of the server that takes a new connection, or -1. The key's
 * Maglev entry if that server allows new connections; otherwise the first server of the key's
 * preference order that allows overflow; failing that the key's own server if it is stressed
 * (its last resort); failing that, none. `avoid` is a bit mask of positions not to choose.
 *
 * The preference order is weighted rendezvous hashing (highest random weight: the smallest
 * −ln(u)/w over the servers, u a hash of the key and the server), so it is stable per key and
 * spreads overflow in proportion to weight. Weight-0 servers take nothing.
 */
export function chooseByHash(
  members: readonly Member[],
  table: MaglevTable,
  keyHash: number,
  avoid: number,
): number {
  const own = maglevLookup(table, keyHash);
  if (own === NO_SERVER) return -1;
  const ownCode = members[own]?.server.code ?? STATE_CODE.offline;
  const ownAvoided = (avoid & (1 << own)) !== 0;
  if (!ownAvoided && OWN_NEW_BY_CODE[ownCode] === OWN_NEW_ALLOW) return own;
  let best = -1;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let j = 0; j < members.length; j++) {
    const m = members[j];
    if (j === own || m === undefined || m.weight === 0 || (avoid & (1 << j)) !== 0) continue;
    if (OVERFLOW_BY_CODE[m.server.code] !== 1) continue;
    const u = (fmix32(mix32(keyHash, m.seed)) + 1) / 4294967297;
    const score = -Math.log(u) / m.weight;
    if (score < bestScore) {
      bestScore = score;
      best = j;
    }
  }
  if (best >= 0) return best;
  if (!ownAvoided && OWN_NEW_BY_CODE[ownCode] === OWN_NEW_LAST_RESORT) return own;
  return -1;
}
