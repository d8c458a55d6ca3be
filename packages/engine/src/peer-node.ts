import type { PeerNodeGroup } from '@ipfe/schema';
import { isIpv4Mapped, newIpWords, parseIp, samePrefix, type IpWords } from './ip.ts';

/**
 * Peer Node Groups (SPEC §2.4, §3.4): a connection's group is the first group, by name, with a
 * member matching its source address. Members are compiled to (address words, prefix) once per
 * configuration; the answer per source address is cached, because a Diameter peer opens many
 * connections from few addresses.
 */

export const NO_GROUP = -1;
const CACHE_LIMIT = 65_536;

interface CompiledMember {
  readonly words: IpWords;
  /** On the 128-bit form: an IPv4 /24 is a /120 of ::ffff:0:0/96. */
  readonly prefix: number;
  readonly v4: boolean;
}

export class PeerNodeGroups {
  readonly names: readonly string[];
  readonly #members: readonly (readonly CompiledMember[])[];
  readonly #cache = new Map<string, number>();
  readonly #scratch = newIpWords();

  constructor(groups: readonly PeerNodeGroup[]) {
    const sorted = [...groups].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.names = sorted.map((g) => g.name);
    this.#members = sorted.map((g) => g.members.flatMap((m) => compileMember(m)));
  }

  get size(): number {
    return this.names.length;
  }

  /** The index (in name order) of the group of `sourceIp`, or NO_GROUP. */
  groupOf(sourceIp: string): number {
    if (this.#members.length === 0) return NO_GROUP;
    const cached = this.#cache.get(sourceIp);
    if (cached !== undefined) return cached;
    const group = parseIp(sourceIp, this.#scratch) ? this.#match(this.#scratch) : NO_GROUP;
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(sourceIp, group);
    return group;
  }

  #match(address: IpWords): number {
    const v4 = isIpv4Mapped(address);
    for (let g = 0; g < this.#members.length; g++) {
      for (const member of this.#members[g] ?? []) {
        if (member.v4 === v4 && samePrefix(member.words, address, member.prefix)) return g;
      }
    }
    return NO_GROUP;
  }
}

function compileMember(member: string): CompiledMember[] {
  const slash = member.indexOf('/');
  const words = newIpWords();
  const text = slash < 0 ? member : member.slice(0, slash);
  if (!parseIp(text, words)) return [];
  const isV4 = text.indexOf(':') < 0;
  const width = isV4 ? 32 : 128;
  const prefix = slash < 0 ? width : Number(member.slice(slash + 1));
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width) return [];
  return [{ words, prefix: isV4 ? 96 + prefix : prefix, v4: isV4 }];
}

/**
 * SPEC §3.4: keeps the candidates whose count of open connections from the group is less than
 * D above the lowest count. `counts[i]` is candidate i's count; returns how many were kept,
 * compacting `candidates` in place (order preserved).
 */
export function filterByPeerNodeGroup(
  candidates: Int32Array,
  length: number,
  counts: ArrayLike<number>,
  threshold: number,
): number {
  if (threshold < 1 || length <= 1) return length;
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < length; i++) lowest = Math.min(lowest, counts[i] ?? 0);
  let kept = 0;
  for (let i = 0; i < length; i++) {
    if ((counts[i] ?? 0) - lowest < threshold) candidates[kept++] = candidates[i] ?? 0;
  }
  return kept;
}
