import { createHmac, timingSafeEqual } from 'node:crypto';
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import net from 'node:net';
import type { IpfeSlot } from '@ipfe/schema';
import type { Logger } from 'pino';

export interface MateSettings {
  ownAddress: string;
  mateAddress: string | null;
  mateSlot: IpfeSlot;
  port: number;
  intervalMs: number;
}

export interface Beacon {
  slot: IpfeSlot;
  /** Changes at every start of the sender: a new boot id means the mate restarted. */
  boot: string;
  revision: number;
  /** False while the sender's TSA-facing link is down (decision 028); absent from older agents. */
  canServe?: boolean;
}

/**
 * A flow record the mate shares (direct path):
 * [tsa, protocol, source, source port, server, seconds left, TSA port].
 */
export type SharedFlow = [string, 'tcp' | 'sctp', string, number, string, number, number];

const MAX_MESSAGE_BYTES = 4096;
/** Flow records per datagram, at most: the payload stays within one unfragmented Ethernet frame. */
const FLOWS_PAYLOAD_BYTES = 1100;
/** A refused send of flow records is a broken channel (5003) for this long after it. */
const SEND_ERROR_HOLD_MS = 5000;

/**
 * Mate liveness (SPEC §4.4): a UDP beacon to the mate every mateIntervalMs, and the mate's beacons
 * received. Beacons carry an HMAC keyed with the deployment token, so a stray or forged datagram
 * cannot keep a dead mate "alive". The same channel carries the direct path's flow records to the
 * mate (`sendFlows`), so that it knows where each connection goes when it takes over.
 */
export class MateLink {
  #socket: dgram.Socket | null = null;
  #timer: NodeJS.Timeout | null = null;
  #settings: MateSettings | null = null;
  #bindError: string | null = null;
  /** The last flow records the socket refused to send, and when (monotonic ms). */
  #sendError: { at: number; message: string } | null = null;

  constructor(
    private readonly own: {
      slot: IpfeSlot;
      boot: string;
      revision: () => number;
      /** Whether this node can serve (its TSA-facing link is up): told in every beacon. */
      canServe?: () => boolean;
    },
    private readonly token: string,
    private readonly onBeacon: (beacon: Beacon) => void,
    private readonly log: Logger,
    private readonly onFlows: (flows: SharedFlow[]) => void = () => {},
  ) {}

  get bindError(): string | null {
    return this.#bindError;
  }

  /**
   * Why flow records do not reach the mate now, or null: the socket cannot be bound, or it refused
   * to send some within the last SEND_ERROR_HOLD_MS (alarm 5003 on the direct path).
   */
  flowSharingFailure(now: number): string | null {
    if (this.#bindError) return `the mate link cannot be bound (${this.#bindError})`;
    const error = this.#sendError;
    if (error && now - error.at < SEND_ERROR_HOLD_MS)
      return `flow records to the mate were not sent (${error.message})`;
    return null;
  }

  configure(settings: MateSettings | null): void {
    const previous = this.#settings;
    const same =
      previous &&
      settings &&
      previous.ownAddress === settings.ownAddress &&
      previous.port === settings.port;
    this.#settings = settings;
    if (!same) this.#rebind();
    this.#restartTimer();
  }

  close(): void {
    this.#settings = null;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#socket?.close();
    this.#socket = null;
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.token).update(payload).digest('base64url');
  }

  #rebind() {
    this.#socket?.close();
    this.#socket = null;
    this.#bindError = null;
    const settings = this.#settings;
    if (!settings) return;
    const socket = dgram.createSocket(net.isIPv6(settings.ownAddress) ? 'udp6' : 'udp4');
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.#bindError = err.code ?? err.message;
      this.log.warn({ err: this.#bindError }, 'mate beacon socket error');
    });
    socket.on('message', (message) => this.#receive(message));
    socket.bind(settings.port, settings.ownAddress);
    this.#socket = socket;
  }

  #receive(message: Buffer) {
    const settings = this.#settings;
    if (!settings || message.length > MAX_MESSAGE_BYTES) return;
    try {
      const { payload, mac } = JSON.parse(message.toString('utf8')) as {
        payload: string;
        mac: string;
      };
      const expected = Buffer.from(this.#mac(payload));
      const given = Buffer.from(String(mac));
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return;
      const parsed = JSON.parse(payload) as Beacon & { flows?: unknown };
      if (parsed.slot !== settings.mateSlot) return;
      if (Array.isArray(parsed.flows)) this.onFlows(parsed.flows.filter(isSharedFlow));
      else if (typeof parsed.boot === 'string') this.onBeacon(parsed);
    } catch {
      // not a beacon of ours
    }
  }

  /** Sends flow records to the mate, a few per datagram. */
  sendFlows(flows: SharedFlow[]): void {
    const mate = this.#settings?.mateAddress;
    const port = this.#settings?.port;
    if (!mate || !port || !this.#socket) return;
    // By size, not count: 16 IPv6 records (or IPv4 ones with long ports) made a datagram the
    // receiver refused as too long, and those flows were lost at the next takeover.
    const send = (batch: SharedFlow[]) => {
      const payload = JSON.stringify({ slot: this.own.slot, flows: batch });
      this.#socket?.send(
        JSON.stringify({ payload, mac: this.#mac(payload) }),
        port,
        mate,
        (err) => {
          if (err)
            this.#sendError = {
              at: performance.now(),
              message: (err as NodeJS.ErrnoException).code ?? err.message,
            };
        },
      );
    };
    let batch: SharedFlow[] = [];
    let bytes = 0;
    for (const flow of flows) {
      const size = JSON.stringify(flow).length + 1;
      if (batch.length > 0 && bytes + size > FLOWS_PAYLOAD_BYTES) {
        send(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(flow);
      bytes += size;
    }
    if (batch.length > 0) send(batch);
  }

  /** A beacon now, besides the timer's: the mate hears at once that this node can or cannot serve. */
  beaconNow(): void {
    this.#beacon();
  }

  #beacon() {
    const settings = this.#settings;
    if (!settings?.mateAddress || !this.#socket) return;
    const payload = JSON.stringify({
      slot: this.own.slot,
      boot: this.own.boot,
      revision: this.own.revision(),
      canServe: this.own.canServe?.() ?? true,
    });
    this.#socket.send(
      JSON.stringify({ payload, mac: this.#mac(payload) }),
      settings.port,
      settings.mateAddress,
      () => {},
    );
  }

  #restartTimer() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    const settings = this.#settings;
    if (!settings?.mateAddress) return;
    this.#beacon();
    this.#timer = setInterval(() => this.#beacon(), settings.intervalMs);
  }
}

function isSharedFlow(value: unknown): value is SharedFlow {
  if (!Array.isArray(value) || value.length !== 7) return false;
  const [tsa, protocol, source, port, server, seconds, tsaPort] = value as unknown[];
  return (
    typeof tsa === 'string' &&
    net.isIP(tsa) !== 0 &&
    (protocol === 'tcp' || protocol === 'sctp') &&
    typeof source === 'string' &&
    net.isIP(source) !== 0 &&
    Number.isInteger(port) &&
    (port as number) >= 0 &&
    (port as number) <= 65535 &&
    typeof server === 'string' &&
    net.isIP(server) !== 0 &&
    Number.isInteger(tsaPort) &&
    (tsaPort as number) >= 1 &&
    (tsaPort as number) <= 65535 &&
    typeof seconds === 'number' &&
    seconds > 0 &&
    seconds <= 86_400 * 366
  );
}
