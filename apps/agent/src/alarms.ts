import type { AlarmCode } from '@ipfe/schema';
import { ALARMS, type Severity, type WantedAlarm } from './alarm-rules.ts';

export { ALARMS, type AlarmCode, type Severity };

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
  reconcile(code: AlarmCode, wanted: readonly WantedAlarm[], now = new Date()): void {
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

  /** Whether an alarm of `code` is active, for `server` if one is named. */
  isActive(code: AlarmCode, server?: string): boolean {
    for (const alarm of this.#active.values())
      if (alarm.code === code && (server === undefined || alarm.server === server)) return true;
    return false;
  }

  active(): Alarm[] {
    return [...this.#active.values()];
  }

  history(): Alarm[] {
    return [...this.#history];
  }
}
