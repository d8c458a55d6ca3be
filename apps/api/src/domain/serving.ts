import {
  slotLabel,
  standbyOf,
  type AgentStatus,
  type ConfigIssue,
  type Configuration,
  type DataPath,
  type ForwardedProtocol,
  type IpfeSlot,
  type TargetSet,
} from '@ipfe/schema';

/**
 * Whether the IPFEs can serve the Target Set Addresses a configuration gives them (issue 24): a save
 * that would leave a TSA served by nobody is refused, and a TSA nobody serves now is said so. Only
 * what the agents report counts; an agent not heard from yet blocks nothing and proves nothing.
 */

/** The latest status of each slot's agent; null until it is heard from (or while it is silent). */
export type Statuses = ReadonlyMap<IpfeSlot, AgentStatus | null>;

const PATH_WORDS: Record<DataPath, string> = {
  userspace: 'user-space',
  kernel: 'kernel',
  direct: 'direct',
};

const protocolsOf = (ts: TargetSet): ForwardedProtocol[] =>
  ts.protocols === 'both' ? ['tcp', 'sctp'] : [ts.protocols];

/** An agent from before `activeActive` was reported announces only on the direct path. */
export const servesActiveActive = (status: AgentStatus) =>
  status.activeActive ?? status.dataplane === 'direct';

interface Tsa {
  address: string;
  /** The IPFEs that may serve it: its active IPFE and that one's standby, or the group. */
  candidates: IpfeSlot[];
}

function tsasOf(config: Configuration, ts: TargetSet): Tsa[] {
  const group = ts.serving === 'activeActive' ? [...new Set(ts.activeActiveIpfes ?? [])] : null;
  const candidates = (active: IpfeSlot) =>
    group ?? [active, standbyOf(config.options, active)].filter((s): s is IpfeSlot => s !== null);
  return [ts.primary, ts.secondary]
    .filter((t) => t !== null && t !== undefined)
    .map((t) => ({ address: t.address, candidates: candidates(t.activeIpfe) }));
}

type Inability = { slot: IpfeSlot; status: AgentStatus; why: 'activeActive' | 'protocols' };

/** Why a reporting agent could not serve the Target Set; null when it could. */
function inabilityOf(ts: TargetSet, slot: IpfeSlot, status: AgentStatus): Inability | null {
  if (ts.serving === 'activeActive' && !servesActiveActive(status))
    return { slot, status, why: 'activeActive' };
  if (!protocolsOf(ts).some((p) => status.forwards.includes(p)))
    return { slot, status, why: 'protocols' };
  return null;
}

/** "IPFE-A1 and IPFE-A2 run the user-space data path", "IPFE-A1 runs the kernel …, IPFE-A2 the …". */
function whatTheyRun(unable: Inability[]): string {
  const byPath = new Map<DataPath, IpfeSlot[]>();
  for (const u of unable)
    byPath.set(u.status.dataplane, [...(byPath.get(u.status.dataplane) ?? []), u.slot]);
  return [...byPath]
    .map(([path, slots], i) => {
      const who = slots.map(slotLabel).join(' and ');
      const verb = i > 0 ? '' : slots.length > 1 ? ' run' : ' runs';
      return `${who}${verb} the ${PATH_WORDS[path]} data path`;
    })
    .join(', ');
}

function refusalOf(ts: TargetSet, address: string, unable: Inability[]): Omit<ConfigIssue, 'path'> {
  const protocols = protocolsOf(ts)
    .map((p) => p.toUpperCase())
    .join(' and ');
  const reason = unable.some((u) => u.why === 'activeActive')
    ? `only the direct data path serves Active-Active, and ${whatTheyRun(unable)}`
    : `${whatTheyRun(unable)}, which does not forward ${protocols}`;
  return { message: `No IPFE could serve ${address}: ${reason}`, severity: 'error' };
}

/**
 * The Target Sets of `config` that no IPFE able to serve them would serve, as errors on the field to
 * change (Active-Active IPFEs, or Protocols). A TSA one of whose IPFEs has not reported is skipped.
 */
export function servingProblems(config: Configuration, statuses: Statuses): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  config.targetSets.forEach((ts, index) => {
    if (ts.disabled) return;
    for (const tsa of tsasOf(config, ts)) {
      const reports = tsa.candidates.map((slot) => ({ slot, status: statuses.get(slot) ?? null }));
      if (reports.length === 0 || reports.some((r) => r.status === null)) continue;
      const unable = reports.map((r) => inabilityOf(ts, r.slot, r.status!));
      if (unable.some((u) => u === null)) continue;
      const inabilities = unable as Inability[];
      const field = inabilities.some((u) => u.why === 'activeActive')
        ? 'activeActiveIpfes'
        : 'protocols';
      const path = `targetSets.${index}.${field}`;
      if (issues.some((i) => i.path === path)) continue;
      issues.push({ path, ...refusalOf(ts, tsa.address, inabilities) });
    }
  });
  return issues;
}

/** A TSA of an enabled Target Set that no IPFE serves now, and why, as the agents tell it. */
export interface Unserved {
  targetSet: number;
  tsa: string;
  reason: string;
}

const announces = (status: AgentStatus, address: string) =>
  (status.bgp?.announced ?? []).some((prefix) => prefix.split('/')[0] === address);

function servesNow(ts: TargetSet, status: AgentStatus, address: string): boolean {
  const owned = status.owned.find((o) => o.tsa === address);
  if (owned?.role !== 'active') return false;
  if (!protocolsOf(ts).some((p) => status.forwards.includes(p))) return false;
  return ts.serving !== 'activeActive' || announces(status, address);
}

function whyUnserved(ts: TargetSet, tsa: Tsa, statuses: Statuses): string {
  const reported = tsa.candidates.flatMap((slot) => {
    const status = statuses.get(slot) ?? null;
    return status ? [{ slot, status }] : [];
  });
  const alarm = reported
    .flatMap((r) => r.status.alarms)
    .find((a) => a.code === 5002 && a.targetSet === ts.number && a.clearedAt === null);
  if (alarm) return alarm.text;
  const silent = tsa.candidates.filter((slot) => !statuses.get(slot));
  if (reported.length === 0)
    return `${silent.map(slotLabel).join(' and ')} ${silent.length > 1 ? 'do' : 'does'} not answer`;
  if (
    ts.serving === 'activeActive' &&
    reported.some((r) => r.status.owned.some((o) => o.tsa === tsa.address))
  )
    return 'nothing is announced over BGP yet';
  return `no IPFE holds ${tsa.address}`;
}

/** The TSAs of one Target Set that no IPFE serves now (none while no agent has reported at all). */
export function unservedOf(config: Configuration, ts: TargetSet, statuses: Statuses): Unserved[] {
  const heard = [...statuses.values()].filter((s): s is AgentStatus => s !== null);
  if (ts.disabled || heard.length === 0) return [];
  return tsasOf(config, ts)
    .filter((tsa) => !heard.some((status) => servesNow(ts, status, tsa.address)))
    .map((tsa) => ({
      targetSet: ts.number,
      tsa: tsa.address,
      reason: whyUnserved(ts, tsa, statuses),
    }));
}

/**
 * The TSAs no IPFE serves now. Nothing is said while no configured agent has reported at all (the
 * OAM does not know yet, and its IPFE status says why).
 */
export const unservedTsas = (config: Configuration, statuses: Statuses): Unserved[] =>
  config.targetSets.flatMap((ts) => unservedOf(config, ts, statuses));

const servingKey = (config: Configuration, issue: ConfigIssue) => {
  const [, index, field] = issue.path.split('.');
  return `${config.targetSets[Number(index)]?.number}|${field}|${issue.message}`;
};

/**
 * The serving problems `candidate` has that `running` has not: what a change would break. One
 * already there (an agent that changed its data path since) is the Status page's to say, not a
 * reason to refuse an unrelated change.
 */
export function newServingProblems(
  running: Configuration,
  candidate: Configuration,
  statuses: Statuses,
): ConfigIssue[] {
  const before = new Set(servingProblems(running, statuses).map((i) => servingKey(running, i)));
  return servingProblems(candidate, statuses).filter((i) => !before.has(servingKey(candidate, i)));
}
