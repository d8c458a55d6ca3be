import type { SlotAlarm } from '../api/get-ipfe';
import { SEVERITY_RANK } from '@/features/alarms/components/alarm-summary';

/** Alarms of one code on one IPFE, with what they are on in one line. */
export interface AlarmGroup {
  code: number;
  name: string;
  severity: string;
  count: number;
  /** "127.0.1.1, 127.0.1.2 (TS 1, 2); TS 3" — empty when the alarm is on the IPFE itself. */
  on: string;
}

const tsList = (numbers: number[]) => `TS ${numbers.join(', ')}`;

function subjects(alarms: SlotAlarm[]): string {
  // Each server once, with the Target Sets it is alarmed in; servers alarmed in the same Target
  // Sets share one "(TS …)".
  const setsOf = new Map<string, Set<number>>();
  const bare = new Set<number>();
  for (const a of alarms) {
    if (a.server === null) {
      if (a.targetSet !== null) bare.add(a.targetSet);
      continue;
    }
    const sets = setsOf.get(a.server) ?? new Set<number>();
    if (a.targetSet !== null) sets.add(a.targetSet);
    setsOf.set(a.server, sets);
  }
  const byKey = new Map<string, { sets: number[]; servers: string[] }>();
  for (const [server, sets] of setsOf) {
    const sorted = [...sets].sort((x, y) => x - y);
    const key = sorted.join(',');
    const entry = byKey.get(key) ?? { sets: sorted, servers: [] };
    entry.servers.push(server);
    byKey.set(key, entry);
  }
  const parts = [...byKey.values()]
    .sort((x, y) => (x.sets[0] ?? 0) - (y.sets[0] ?? 0))
    .map(
      ({ sets, servers }) => `${servers.join(', ')}${sets.length > 0 ? ` (${tsList(sets)})` : ''}`,
    );
  if (bare.size > 0) parts.push(tsList([...bare].sort((x, y) => x - y)));
  return parts.join('; ');
}

/**
 * An IPFE's active alarms folded by code, worst first: "5001 Backend Unavailable ×6 on 127.0.1.1,
 * 127.0.1.2, 127.0.1.3 (TS 1, 2)" instead of six identical names.
 */
export function groupAlarms(alarms: SlotAlarm[]): AlarmGroup[] {
  const byCode = new Map<number, SlotAlarm[]>();
  for (const a of alarms) byCode.set(a.code, [...(byCode.get(a.code) ?? []), a]);
  return [...byCode.values()]
    .map((list) => ({
      code: list[0]!.code,
      name: list[0]!.name,
      severity: list[0]!.severity,
      count: list.length,
      on: subjects(list),
    }))
    .sort(
      (x, y) =>
        (SEVERITY_RANK[x.severity] ?? 9) - (SEVERITY_RANK[y.severity] ?? 9) || x.code - y.code,
    );
}
