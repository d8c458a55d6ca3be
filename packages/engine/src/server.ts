import type { Millis } from './types.ts';
import { SERVER_STATES, STATE_CODE, type ServerState } from './server-state.ts';

/** What the engine knows about one application server (by its listed primary address). */
export class Server {
  readonly index: number;
  readonly address: string;
  code: number = STATE_CODE.initializing;
  reported = false;
  mps = 0;
  mpsCapacity = 0;
  connections = 0;
  connectionCapacity = 0;
  lastHeard: Millis = 0;
  /** When the state last changed. */
  since: Millis = 0;
  inUse = false;
  /** Live bindings (TSA × this server) of the current configuration. */
  bindings: number[] = [];
  /** Open connections from each peer node group (by group id). */
  groupCounts = new Uint32Array(0);

  constructor(index: number, address: string) {
    this.index = index;
    this.address = address;
  }

  get state(): ServerState {
    return SERVER_STATES[this.code] ?? 'offline';
  }

  groupCount(group: number): number {
    return this.groupCounts[group] ?? 0;
  }

  addToGroup(group: number, delta: number): void {
    if (group >= this.groupCounts.length) {
      const next = new Uint32Array(Math.max(8, 2 ** Math.ceil(Math.log2(group + 1))));
      next.set(this.groupCounts);
      this.groupCounts = next;
    }
    this.groupCounts[group] = (this.groupCounts[group] ?? 0) + delta;
  }
}
