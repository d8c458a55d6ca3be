import type { PlannedTsa } from '@ipfe/engine';
import type { MateRecord } from './direct-nft-script.ts';
import type { SharedFlow } from './mate-link.ts';

/** A flow record: this node's memory of which server a connection went to. */
export interface FlowRecord {
  tsa: string;
  protocol: 'tcp' | 'sctp';
  source: string;
  sourcePort: number;
  /** The TSA's port. */
  port: number;
  /** Where its packets go (PlannedServer.address). */
  server: string;
  expiresS: number;
}

/** Every flow is told again this often (or a third of Delete Age, if shorter) while it lasts. */
const RESEND_EVERY_MS = 10_000;
/** Flow records kept for the mate's TSAs, in case this node takes them over. */
export const MATE_RECORDS_MAX = 2_000_000;

export const flowKey = (
  tsa: string,
  protocol: string,
  source: string,
  sourcePort: number,
  port: number,
) => `${tsa}|${protocol}|${source}|${sourcePort}|${port}`;

/**
 * The direct path's flows shared with its mate over the mate link (no I/O; time passed in): what
 * this node told the mate, and the mate's flows it keeps to put into its own records when it takes
 * a TSA over, before it announces it.
 */
export class FlowSharing {
  /** When each flow was last told to the mate, and to which server it went. */
  #told = new Map<string, { server: string; at: number }>();
  /** The mate's flows, by "TSA|protocol|source|port": where they go, and until when. */
  #mateFlows = new Map<string, { flow: SharedFlow; until: number }>();
  /** The flows this node held records of at its last read. */
  #own = new Set<string>();
  /** The mate's flows written into this node's sets since the last takeover. */
  #recorded = new Set<string>();

  constructor(private readonly maxMateFlows = MATE_RECORDS_MAX) {}

  /** The mate's flows kept. */
  get mateFlows(): number {
    return this.#mateFlows.size;
  }

  /** Flow records the mate told of (beyond the bound, new ones are dropped). */
  fromMate(flows: SharedFlow[], now: number): void {
    for (const flow of flows) {
      const key = flowKey(flow[0], flow[1], flow[2], flow[3], flow[6]);
      if (this.#mateFlows.size >= this.maxMateFlows && !this.#mateFlows.has(key)) break;
      this.#mateFlows.set(key, { flow, until: now + flow[5] * 1000 });
    }
  }

  /** Everything is told again: the mate kept nothing of what it heard. */
  mateReset(): void {
    this.#told.clear();
  }

  /** A TSA taken over: the mate's flows of it go into the records again. */
  gained(tsa: string): void {
    for (const key of this.#recorded) if (key.startsWith(`${tsa}|`)) this.#recorded.delete(key);
  }

  forgetExpired(now: number): void {
    for (const [key, { until }] of this.#mateFlows) if (until <= now) this.#mateFlows.delete(key);
  }

  /**
   * The mate's flows of a TSA this node takes over that its records lack, to servers that keep
   * their connections; `recorded` marks them written once the script is in.
   */
  toRecord(p: PlannedTsa, now: number): { records: MateRecord[]; keys: string[] } {
    const keeps = new Set(p.servers.filter((s) => !s.dropsExisting).map((s) => s.address));
    const records: MateRecord[] = [];
    const keys: string[] = [];
    for (const [key, { flow, until }] of this.#mateFlows) {
      const [tsa, protocol, source, sourcePort, server, , port] = flow;
      // A flow this node recorded itself meanwhile (adopted by the table) keeps its record: nft
      // 1.0.6 cannot delete an element that may be absent, and one key in two sets is ambiguous.
      if (tsa !== p.tsa || !keeps.has(server) || this.#recorded.has(key) || this.#own.has(key))
        continue;
      keys.push(key);
      const timeoutS = Math.max(1, Math.ceil((until - now) / 1000));
      records.push({ server, protocol, source, sourcePort, port, timeoutS });
    }
    return { records, keys };
  }

  recorded(keys: readonly string[]): void {
    for (const key of keys) this.#recorded.add(key);
  }

  /** The flows this node holds records of now (read from its sets). */
  own(records: Iterable<FlowRecord>): void {
    const own = new Set<string>();
    for (const r of records) own.add(flowKey(r.tsa, r.protocol, r.source, r.sourcePort, r.port));
    this.#own = own;
  }

  /**
   * What to tell the mate of a TSA's records: flows it does not know yet, or whose server changed,
   * and every flow again every 10 s (or third of Delete Age, if shorter) while it lasts (a datagram
   * may be lost, and the mate's copy expires as this node's would). Flows gone are forgotten.
   */
  toTell(
    p: Pick<PlannedTsa, 'tsa' | 'deleteAgeSeconds'>,
    records: readonly FlowRecord[],
    now: number,
  ): SharedFlow[] {
    const again = Math.min(RESEND_EVERY_MS, (p.deleteAgeSeconds * 1000) / 3);
    const flows: SharedFlow[] = [];
    const seen = new Set<string>();
    for (const r of records) {
      const key = flowKey(r.tsa, r.protocol, r.source, r.sourcePort, r.port);
      seen.add(key);
      const last = this.#told.get(key);
      if (last && last.server === r.server && now - last.at < again) continue;
      this.#told.set(key, { server: r.server, at: now });
      flows.push([
        r.tsa,
        r.protocol,
        r.source,
        r.sourcePort,
        r.server,
        Math.max(1, r.expiresS),
        r.port,
      ]);
    }
    for (const key of this.#told.keys())
      if (key.startsWith(`${p.tsa}|`) && !seen.has(key)) this.#told.delete(key);
    return flows;
  }
}
