import { createHmac, timingSafeEqual } from 'node:crypto';
import dgram from 'node:dgram';
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
}

const MAX_BEACON_BYTES = 512;

/**
 * Mate liveness (SPEC §4.4): a UDP beacon to the mate every mateIntervalMs, and the mate's beacons
 * received. Beacons carry an HMAC keyed with the deployment token, so a stray or forged datagram
 * cannot keep a dead mate "alive".
 */
export class MateLink {
  #socket: dgram.Socket | null = null;
  #timer: NodeJS.Timeout | null = null;
  #settings: MateSettings | null = null;
  #bindError: string | null = null;

  constructor(
    private readonly own: { slot: IpfeSlot; boot: string; revision: () => number },
    private readonly token: string,
    private readonly onBeacon: (beacon: Beacon) => void,
    private readonly log: Logger,
  ) {}

  get bindError(): string | null {
    return this.#bindError;
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
    if (!settings || message.length > MAX_BEACON_BYTES) return;
    try {
      const { payload, mac } = JSON.parse(message.toString('utf8')) as {
        payload: string;
        mac: string;
      };
      const expected = Buffer.from(this.#mac(payload));
      const given = Buffer.from(String(mac));
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return;
      const beacon = JSON.parse(payload) as Beacon;
      if (beacon.slot !== settings.mateSlot || typeof beacon.boot !== 'string') return;
      this.onBeacon(beacon);
    } catch {
      // not a beacon of ours
    }
  }

  #restartTimer() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    const settings = this.#settings;
    if (!settings?.mateAddress) return;
    const send = () => {
      const mate = this.#settings?.mateAddress;
      if (!mate || !this.#socket) return;
      const payload = JSON.stringify({
        slot: this.own.slot,
        boot: this.own.boot,
        revision: this.own.revision(),
      });
      this.#socket.send(
        JSON.stringify({ payload, mac: this.#mac(payload) }),
        settings.port,
        mate,
        () => {},
      );
    };
    send();
    this.#timer = setInterval(send, settings.intervalMs);
  }
}
