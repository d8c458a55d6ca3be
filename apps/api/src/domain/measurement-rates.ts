import {
  TARGET_SET_MEASUREMENTS,
  type AgentMeasurements,
  type IpfeSlot,
  type MeasurementsView,
  type ServerRates,
  type TargetSet,
  type TargetSetMeasurement,
  type TargetSetRates,
} from '@ipfe/schema';

/** What an agent reported of its measurements at one poll (ms since the epoch), and its boot. */
export interface MeasurementSample {
  at: number;
  boot: string;
  measurements: AgentMeasurements;
}

/** How much is kept (the last hour) and how finely: one sample per IPFE per step. */
export interface SampleWindow {
  windowMs: number;
  stepMs: number;
}

export const MEASUREMENT_WINDOW: SampleWindow = { windowMs: 3_600_000, stepMs: 10_000 };

/**
 * The IPFE's samples with `sample` kept when a step has passed since the last kept one; the ones
 * older than the window go, but for one that starts the window's first interval.
 */
export function keepSample(
  ring: readonly MeasurementSample[],
  sample: MeasurementSample,
  { windowMs, stepMs }: SampleWindow,
): readonly MeasurementSample[] {
  const last = ring.at(-1);
  if (last && sample.at - last.at < stepMs) return ring;
  const kept = [...ring, sample];
  const from = kept.findLastIndex((s) => s.at <= sample.at - windowMs);
  return from > 0 ? kept.slice(from) : kept;
}

/**
 * What was counted between two totals. A total that went down, or a new boot, means the agent
 * restarted: what it counted since is all that is known of the interval (never a negative count).
 * A count that was not counted before is known only from a restart on.
 */
export function increase(before: number | null, after: number | null, restarted: boolean) {
  if (after === null) return null;
  if (restarted || (before !== null && after < before)) return after;
  return before === null ? null : after - before;
}

/** The sum of what is counted; null when nothing is ("not counted"). */
export function sumCounted(values: readonly (number | null)[]): number | null {
  const counted = values.filter((v): v is number => v !== null);
  return counted.length === 0 ? null : counted.reduce((a, b) => a + b, 0);
}

type Values<K extends string> = Record<K, number | null>;

/** Per step (its index since the epoch): what each IPFE's interval ending in it gave. */
type Steps<K extends string> = Map<number, Values<K>[]>;

function addTo<K extends string>(steps: Steps<K>, step: number, values: Values<K>) {
  const list = steps.get(step);
  if (list) list.push(values);
  else steps.set(step, [values]);
}

function summed<K extends string>(
  steps: Steps<K>,
  keys: readonly K[],
  stepMs: number,
): ({ at: string } & Values<K>)[] {
  return [...steps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([step, list]) => {
      const values = {} as Values<K>;
      for (const key of keys) values[key] = sumCounted(list.map((v) => v[key]));
      return { at: new Date(step * stepMs).toISOString(), ...values };
    });
}

type TargetSetReport = AgentMeasurements['targetSets'][number];

/**
 * The Measurements page's answer: per Target Set of the running configuration and per server of
 * it, the current totals summed over the IPFEs that report them (`latest`), and the rates per
 * second of each step of the last window summed over the IPFEs (`rings`). An interval counts in
 * the step it ends in; a step in which no IPFE ended one is left out.
 */
export function measurementsView(input: {
  targetSets: readonly TargetSet[];
  accounting: boolean;
  rings: ReadonlyMap<IpfeSlot, readonly MeasurementSample[]>;
  latest: ReadonlyMap<IpfeSlot, AgentMeasurements | null>;
  now: number;
  window: SampleWindow;
}): MeasurementsView {
  const { stepMs, windowMs } = input.window;
  const firstStep = Math.floor((input.now - windowMs) / stepMs) + 1;
  const tsSteps = new Map<number, Steps<TargetSetMeasurement>>();
  const serverSteps = new Map<string, Steps<'txBytes'>>();
  const serverKey = (number: number, address: string) => `${number} ${address}`;

  for (const ring of input.rings.values()) {
    for (let i = 1; i < ring.length; i++) {
      const before = ring[i - 1]!;
      const after = ring[i]!;
      const step = Math.floor(after.at / stepMs);
      if (step < firstStep) continue;
      const seconds = (after.at - before.at) / 1000;
      const restarted = after.boot !== before.boot;
      const rate = (was: number | null | undefined, is: number | null) => {
        const counted = increase(was === undefined ? 0 : was, is, restarted);
        return counted === null ? null : counted / seconds;
      };
      for (const ts of after.measurements.targetSets) {
        const was: TargetSetReport | undefined = before.measurements.targetSets.find(
          (t) => t.number === ts.number,
        );
        const values = {} as Values<TargetSetMeasurement>;
        for (const key of TARGET_SET_MEASUREMENTS) values[key] = rate(was?.[key], ts[key]);
        if (!tsSteps.has(ts.number)) tsSteps.set(ts.number, new Map());
        addTo(tsSteps.get(ts.number)!, step, values);
        for (const server of ts.servers) {
          const wasServer = was?.servers.find((s) => s.address === server.address);
          const key = serverKey(ts.number, server.address);
          if (!serverSteps.has(key)) serverSteps.set(key, new Map());
          addTo(serverSteps.get(key)!, step, { txBytes: rate(wasServer?.txBytes, server.txBytes) });
        }
      }
    }
  }

  const reports = [...input.latest.values()].filter((m): m is AgentMeasurements => m !== null);
  const reportsOf = (number: number) =>
    reports.flatMap((m) => m.targetSets.filter((t) => t.number === number));

  return {
    windowSeconds: windowMs / 1000,
    stepSeconds: stepMs / 1000,
    accounting: input.accounting,
    reporting: [...input.latest].filter(([, m]) => m !== null).map(([slot]) => slot),
    targetSets: input.targetSets.map((ts) => {
      const now = reportsOf(ts.number);
      const totals = {} as Values<TargetSetMeasurement>;
      for (const key of TARGET_SET_MEASUREMENTS) totals[key] = sumCounted(now.map((t) => t[key]));
      return {
        number: ts.number,
        tsa: ts.primary.address,
        totals,
        rates: summed(
          tsSteps.get(ts.number) ?? new Map(),
          TARGET_SET_MEASUREMENTS,
          stepMs,
        ) as TargetSetRates[],
        servers: ts.servers.map(({ address }) => ({
          address,
          txBytes: sumCounted(
            now.map((t) => t.servers.find((s) => s.address === address)?.txBytes ?? null),
          ),
          rates: summed(
            serverSteps.get(serverKey(ts.number, address)) ?? new Map(),
            ['txBytes'],
            stepMs,
          ) as ServerRates[],
        })),
      };
    }),
  };
}
