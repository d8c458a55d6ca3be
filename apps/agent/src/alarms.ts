/** Alarms numbered after the source product's IPFE alarms (SPEC §4.6), plus 5100 for pushes. */
export const ALARMS = {
  5001: { name: 'Backend Unavailable', severity: 'major' },
  5002: { name: 'Address Configuration Error', severity: 'critical' },
  5005: { name: 'Backend In Stasis', severity: 'minor' },
  5008: { name: 'Out of Balance: High', severity: 'minor' },
  5009: { name: 'No Available Servers in Target Set', severity: 'critical' },
  5012: { name: 'Mate Heartbeat Timeout', severity: 'major' },
  /** Per upstream router, while its BGP session is not established (issue 18). */
  5020: { name: 'BGP Session Down', severity: 'major' },
  5100: { name: 'Configuration Rejected', severity: 'minor' },
} as const;

export type AlarmCode = keyof typeof ALARMS;
export type Severity = (typeof ALARMS)[AlarmCode]['severity'];

export interface Alarm {
  code: AlarmCode;
  name: string;
  severity: Severity;
  targetSet: number | null;
  server: string | null;
  text: string;
  raisedAt: string;
  clearedAt: string | null;
}

const HISTORY = 500;

/** Active alarms, each raised once per (code, Target Set, server) and cleared when its cause goes. */
export class Alarms {
  #active = new Map<string, Alarm>();
  #history: Alarm[] = [];

  constructor(private readonly onChange: (alarm: Alarm) => void = () => {}) {}

  static key(
    code: AlarmCode,
    targetSet: number | null = null,
    server: string | null = null,
  ): string {
    return `${code}|${targetSet ?? ''}|${server ?? ''}`;
  }

  raise(
    code: AlarmCode,
    text: string,
    where: { targetSet?: number; server?: string } = {},
    now = new Date(),
  ): void {
    const key = Alarms.key(code, where.targetSet ?? null, where.server ?? null);
    const current = this.#active.get(key);
    if (current) {
      current.text = text;
      return;
    }
    const alarm: Alarm = {
      code,
      name: ALARMS[code].name,
      severity: ALARMS[code].severity,
      targetSet: where.targetSet ?? null,
      server: where.server ?? null,
      text,
      raisedAt: now.toISOString(),
      clearedAt: null,
    };
    this.#active.set(key, alarm);
    this.onChange(alarm);
  }

  clear(
    code: AlarmCode,
    where: { targetSet?: number; server?: string } = {},
    now = new Date(),
  ): void {
    const key = Alarms.key(code, where.targetSet ?? null, where.server ?? null);
    const alarm = this.#active.get(key);
    if (!alarm) return;
    this.#active.delete(key);
    alarm.clearedAt = now.toISOString();
    this.#history.push(alarm);
    if (this.#history.length > HISTORY) this.#history.splice(0, this.#history.length - HISTORY);
    this.onChange(alarm);
  }

  /** Raises the alarms of `code` that `wanted` names and clears every other one of that code. */
  reconcile(
    code: AlarmCode,
    wanted: { text: string; targetSet?: number; server?: string }[],
    now = new Date(),
  ): void {
    const keep = new Set(
      wanted.map((w) => Alarms.key(code, w.targetSet ?? null, w.server ?? null)),
    );
    for (const alarm of [...this.#active.values()]) {
      if (alarm.code !== code) continue;
      if (!keep.has(Alarms.key(code, alarm.targetSet, alarm.server))) {
        this.clear(
          code,
          { targetSet: alarm.targetSet ?? undefined, server: alarm.server ?? undefined },
          now,
        );
      }
    }
    for (const w of wanted) this.raise(code, w.text, w, now);
  }

  active(): Alarm[] {
    return [...this.#active.values()];
  }

  history(): Alarm[] {
    return [...this.#history];
  }
}
