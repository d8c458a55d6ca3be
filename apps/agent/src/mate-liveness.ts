import type { IpfeSlot, Options } from '@ipfe/schema';

/**
 * Mate liveness (SPEC §4.4), decided here and nowhere else: the mate is alive while its beacons
 * keep coming; silent for mateTimeoutMs, it is dead (alarm 5012); heard again, it is alive; a new
 * boot id means it restarted. The agent feeds the events with their (monotonic) time and carries
 * out the actions: Ownership is told, the data path forgets what it told the mate, and after a
 * split the TSAs this node kept are announced again once the mate's hold-off has passed. A mate
 * whose beacons say it cannot serve (its TSA-facing link is down, decision 028) is alive but
 * unable: its TSAs come here; when its beacons say it can again, it takes them back after the
 * hold-off.
 */
export interface MateLiveness {
  /** The mate's configured address (null: none configured). */
  readonly address: string | null;
  /** How long a silence may last before the mate is dead; null: no mate to watch. */
  readonly timeoutMs: number | null;
  readonly alive: boolean;
  /** The boot id of the mate's last beacon; null before the first one. */
  readonly boot: string | null;
  /** When the mate was last heard (or configured, which gives it a whole timeout to be heard). */
  readonly heardAt: number;
  /** The preemption hold-off both mates wait before a returning active takes its TSAs back. */
  readonly holdOffMs: number;
  /** What the mate's last beacon said: whether it can serve (its TSA-facing link is up). */
  readonly canServe: boolean;
}

export type MateEvent =
  /** A configuration was applied. */
  | { type: 'configured'; address: string | null; timeoutMs: number | null }
  /** `canServe`: false while the mate's TSA-facing link is down (absent from older agents: true). */
  | { type: 'beacon'; boot: string; canServe: boolean }
  | { type: 'tick' };

export type MateAction =
  /** A new boot id: the mate restarted (it waits for the hold-off before it takes TSAs back). */
  | { do: 'restarted' }
  /** The dead mate is heard again; `reassertAfterMs` later, announce again the TSAs kept. */
  | { do: 'back'; reassertAfterMs: number }
  /** The mate's first beacon: what this node told it before it listened is lost. */
  | { do: 'first' }
  /** Any beacon: alarm 5012 clears. */
  | { do: 'heard' }
  /** Silent for `timeoutMs`: the mate is dead (alarm 5012). */
  | { do: 'dead'; timeoutMs: number }
  /** The mate says it cannot serve: its TSAs come here (it stays alive: beacons, shared state). */
  | { do: 'unable' }
  /** The mate says it can serve again: it takes its TSAs back after the hold-off. */
  | { do: 'able' };

/** After a split the mate lets go once its hold-off passes; the TSAs kept are announced after. */
export const REASSERT_AFTER_HOLD_OFF_MS = 300;

/** Every slot starts "alive since ever" (as in Ownership): dead only after a silence. */
export function initialMateLiveness(now: number, holdOffMs: number): MateLiveness {
  return {
    address: null,
    timeoutMs: null,
    alive: true,
    boot: null,
    heardAt: now,
    holdOffMs,
    canServe: true,
  };
}

/** The `configured` event of a configuration's options, for this node's mate. */
export function configuredEvent(options: Options, mate: IpfeSlot): MateEvent {
  const ipfe = options.ipfe[mate];
  return {
    type: 'configured',
    address: ipfe?.address ?? null,
    timeoutMs: ipfe ? options.mateTimeoutMs : null,
  };
}

export function next(
  state: MateLiveness,
  event: MateEvent,
  now: number,
): { state: MateLiveness; actions: MateAction[] } {
  switch (event.type) {
    case 'configured':
      return {
        // A mate just configured (or moved) gets a whole timeout to be heard.
        state:
          event.address !== state.address
            ? { ...state, address: event.address, timeoutMs: event.timeoutMs, heardAt: now }
            : { ...state, timeoutMs: event.timeoutMs },
        actions: [],
      };
    case 'beacon': {
      const actions: MateAction[] = [];
      if (state.boot !== null && event.boot !== state.boot) actions.push({ do: 'restarted' });
      else if (!state.alive)
        actions.push({
          do: 'back',
          reassertAfterMs: state.holdOffMs + REASSERT_AFTER_HOLD_OFF_MS,
        });
      if (state.boot === null) actions.push({ do: 'first' });
      actions.push({ do: 'heard' });
      if (event.canServe !== state.canServe)
        actions.push({ do: event.canServe ? 'able' : 'unable' });
      return {
        state: { ...state, alive: true, boot: event.boot, heardAt: now, canServe: event.canServe },
        actions,
      };
    }
    case 'tick':
      if (state.timeoutMs === null || !state.alive || now - state.heardAt < state.timeoutMs)
        return { state, actions: [] };
      return {
        state: { ...state, alive: false },
        actions: [{ do: 'dead', timeoutMs: state.timeoutMs }],
      };
  }
}
