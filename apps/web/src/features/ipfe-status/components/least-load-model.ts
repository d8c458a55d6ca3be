import {
  bandTop as bandTopOf,
  leastLoadCandidates,
  leastTakesAll,
  newConnectionRule,
  SERVER_STATES,
  type ServerState,
} from '@ipfe/engine';
import type { AgentStatus } from '@ipfe/schema';

export type LiveServer = AgentStatus['targetSets'][number]['servers'][number];

export type Verdict =
  /** Inside the allowed-deviation band: shares new connections by weighted round-robin. */
  | 'band'
  /** The least loaded server alone takes new connections (the runner-up is a deviation or more above). */
  | 'least'
  /** A candidate, but above the band. */
  | 'above'
  /** Not a candidate (weight 0, or a state that refuses new connections). */
  | 'excluded'
  /** Stressed: a candidate only because no other server can take a new connection. */
  | 'last-resort';

export interface PictureServer {
  address: string;
  load: number | null;
  weight: number;
  state: string;
  verdict: Verdict;
  /** Why, in words: "weight 0: takes no new connections", "offline: refuses new connections". */
  reason: string;
}

export interface LeastLoadPicture {
  servers: PictureServer[];
  /** The lowest L among the candidates (null: no candidate). */
  lowest: number | null;
  /** The top of the allowed-deviation band: lowest + allowedDeviation. */
  bandTop: number | null;
  allowedDeviation: number;
  /** How new connections are chosen now, in one sentence. */
  summary: string;
}

const isState = (s: string): s is ServerState => (SERVER_STATES as readonly string[]).includes(s);

export const formatLoad = (load: number | null) =>
  load === null ? '—' : load < 10 ? load.toFixed(2) : load.toFixed(1);

/**
 * The Least Load choice of SPEC §3.3 as it stands for one Target Set, from the serving agent's
 * latest figures: which servers are candidates, the lowest L, the band of allowedDeviation above
 * it, and which candidates share new connections. The engine's own rules (candidates, the band),
 * over the loads the agent reports; the per-connection Peer Node filter
 * (§3.4) and the low-traffic fallback are not part of it.
 */
export function leastLoadPicture(
  servers: LiveServer[],
  allowedDeviation: number,
): LeastLoadPicture {
  const ruleOf = (s: LiveServer) =>
    isState(s.state) ? newConnectionRule(s.weight, s.state) : 'refuse';
  const { candidates, lastResort } = leastLoadCandidates(servers, ruleOf);
  const known = candidates.filter((s) => s.load !== null);

  let lowest: number | null = null;
  let first: LiveServer | null = null;
  let second = Number.POSITIVE_INFINITY;
  for (const s of known) {
    const l = s.load!;
    if (lowest === null || l < lowest) {
      if (lowest !== null) second = lowest;
      lowest = l;
      first = s;
    } else if (l < second) {
      second = l;
    }
  }
  const leastOnly = lowest !== null && leastTakesAll(lowest, second, allowedDeviation);
  const bandTop = lowest === null ? null : bandTopOf(lowest, allowedDeviation);

  const pictured = servers.map((s): PictureServer => {
    const base = { address: s.address, load: s.load, weight: s.weight, state: s.state };
    if (s.weight <= 0) {
      return { ...base, verdict: 'excluded', reason: 'weight 0: no new connections' };
    }
    const rule = ruleOf(s);
    if (rule === 'refuse' || (rule === 'last-resort' && !lastResort)) {
      return {
        ...base,
        verdict: 'excluded',
        reason:
          rule === 'last-resort'
            ? `${s.state}: only if no other server can take it`
            : `${s.state}: refuses new connections`,
      };
    }
    if (s.load === null) return { ...base, verdict: 'excluded', reason: 'no load reported yet' };
    const tag = lastResort ? ' (no other server can take it)' : '';
    if (leastOnly) {
      return s === first
        ? {
            ...base,
            verdict: 'least',
            reason: `takes every new connection: the runner-up is +${allowedDeviation} or more above${tag}`,
          }
        : {
            ...base,
            verdict: 'above',
            reason: `+${allowedDeviation} or more above the lowest: none for now`,
          };
    }
    return s.load <= bandTop!
      ? {
          ...base,
          verdict: lastResort ? 'last-resort' : 'band',
          reason: `within +${allowedDeviation} of the lowest: shares round-robin${tag}`,
        }
      : {
          ...base,
          verdict: 'above',
          reason: `more than +${allowedDeviation} above the lowest: none for now`,
        };
  });

  const sharing = pictured.filter((s) => s.verdict === 'band' || s.verdict === 'last-resort');
  let summary: string;
  if (lowest === null)
    summary = 'No server can take a new connection: new connections are refused.';
  else if (leastOnly)
    summary = `${first!.address} is the least loaded and takes every new connection.`;
  else
    summary = `${sharing.length} servers within ${allowedDeviation} points of the lowest L share new connections by weighted round-robin.`;
  if (lastResort && lowest !== null) summary += ' Only stressed servers are left.';
  return { servers: pictured, lowest, bandTop, allowedDeviation, summary };
}

/** The verdict in a word or two, as the chart and the table tag each server. */
export const VERDICT_WORDS: Record<Verdict, string> = {
  band: 'in band',
  least: 'least loaded',
  above: 'above band',
  excluded: 'excluded',
  'last-resort': 'last resort',
};
