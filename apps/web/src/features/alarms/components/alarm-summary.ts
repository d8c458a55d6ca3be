/** Worst first: what an operator must see before anything else. */
export const SEVERITY_RANK: Record<string, number> = { critical: 0, major: 1, minor: 2 };

export interface AlarmSummary {
  /** Every active alarm. */
  count: number;
  /** The highest severity among them, and how many have it. */
  severity: string;
  atSeverity: number;
}

/** The header's word on the active alarms: how many, at their highest severity; null when none. */
export function alarmSummaryOf(active: { severity: string }[]): AlarmSummary | null {
  if (active.length === 0) return null;
  const rank = (severity: string) => SEVERITY_RANK[severity] ?? 9;
  const severity = active.map((a) => a.severity).sort((a, b) => rank(a) - rank(b))[0]!;
  return {
    count: active.length,
    severity,
    atSeverity: active.filter((a) => a.severity === severity).length,
  };
}
