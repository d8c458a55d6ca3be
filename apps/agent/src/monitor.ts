import net from 'node:net';
import {
  HEARTBEAT_LINE_MAX,
  heartbeatSchema,
  type HeartbeatReport,
  type Options,
} from '@ipfe/schema';
import type { Logger } from 'pino';

export interface MonitorEvents {
  connected(server: string): void;
  lost(server: string): void;
  heartbeat(server: string, report: HeartbeatReport): void;
  malformed(server: string, line: string): void;
}

type MonitorSettings = Pick<
  Options,
  'monitorProtocol' | 'monitoringPort' | 'connectTryIntervalS' | 'connectTimeoutS'
>;

interface Watch {
  server: string;
  socket: net.Socket | null;
  retry: NodeJS.Timeout | null;
  up: boolean;
  /** The current connection has delivered a heartbeat (or needs none). */
  heard: boolean;
}

/**
 * Application server monitoring (SPEC §4.3): one TCP connection per watched server on its
 * monitoring port, retried every connectTryIntervalS; heartbeat lines parsed with the shared
 * schema. A malformed or oversize line is counted and skipped, never fatal. The engine turns a
 * server silent for connectTimeoutS offline; the silent connection is then dropped and retried.
 */
export class Monitor {
  #watches = new Map<string, Watch>();
  #settings: MonitorSettings | null = null;
  #closed = false;

  constructor(
    private readonly events: MonitorEvents,
    private readonly log: Logger,
  ) {}

  configure(servers: string[], settings: MonitorSettings): void {
    const previous = this.#settings;
    this.#settings = settings;
    const changed =
      !previous ||
      previous.monitorProtocol !== settings.monitorProtocol ||
      previous.monitoringPort !== settings.monitoringPort;
    const wanted = settings.monitorProtocol === 'disabled' ? new Set<string>() : new Set(servers);
    for (const [server, watch] of this.#watches) {
      if (!wanted.has(server) || changed) this.#stop(watch);
    }
    for (const server of wanted) if (!this.#watches.has(server)) this.#start(server);
  }

  watching(): { server: string; up: boolean }[] {
    return [...this.#watches.values()].map(({ server, up }) => ({ server, up }));
  }

  /**
   * Connects again at once to every server whose connection is down, without waiting for its
   * retry: the TSA-facing link is back, and the servers must be seen again before this node takes
   * its TSAs back (a server still offline here would lose its connections in the hand-back).
   */
  reconnect(): void {
    for (const watch of this.#watches.values()) {
      if (watch.up) continue;
      if (watch.retry) clearTimeout(watch.retry);
      watch.retry = null;
      const pending = watch.socket;
      watch.socket = null;
      pending?.destroy();
      this.#connect(watch);
    }
  }

  close(): void {
    this.#closed = true;
    for (const watch of this.#watches.values()) this.#stop(watch);
  }

  #start(server: string) {
    const watch: Watch = { server, socket: null, retry: null, up: false, heard: false };
    this.#watches.set(server, watch);
    this.#connect(watch);
  }

  #stop(watch: Watch) {
    this.#watches.delete(watch.server);
    if (watch.retry) clearTimeout(watch.retry);
    watch.socket?.destroy();
  }

  #connect(watch: Watch) {
    const settings = this.#settings;
    if (!settings || this.#closed || this.#watches.get(watch.server) !== watch) return;
    const socket = net.connect({ host: watch.server, port: settings.monitoringPort });
    watch.socket = socket;
    socket.setTimeout(settings.connectTimeoutS * 1000);
    // A connect that hangs, or (with heartbeats) a connection silent for connectTimeoutS, is
    // dropped and retried: the server is offline by then, and a fresh connection may reach it.
    socket.on('timeout', () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('connect', () => {
      if (settings.monitorProtocol !== 'heartbeat') socket.setTimeout(0);
      watch.up = true;
      watch.heard = settings.monitorProtocol !== 'heartbeat';
      this.log.info({ server: watch.server }, 'monitoring connection up');
      this.events.connected(watch.server);
    });
    if (settings.monitorProtocol === 'heartbeat') this.#readLines(watch, socket);
    else socket.resume();
    socket.on('close', () => {
      if (watch.socket !== socket) return;
      watch.socket = null;
      if (watch.up) {
        watch.up = false;
        // A hung server accepts every reconnect and stays silent: one warning per outage.
        if (watch.heard) this.log.warn({ server: watch.server }, 'monitoring connection lost');
        else this.log.debug({ server: watch.server }, 'silent monitoring connection dropped');
        this.events.lost(watch.server);
      }
      if (this.#watches.get(watch.server) === watch && !this.#closed) {
        watch.retry = setTimeout(() => this.#connect(watch), settings.connectTryIntervalS * 1000);
      }
    });
  }

  #readLines(watch: Watch, socket: net.Socket) {
    let buffer = '';
    let discarding = false; // inside an oversize line: skip to its end
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (discarding) {
          discarding = false;
          continue;
        }
        if (this.#line(watch.server, line)) watch.heard = true;
      }
      if (buffer.length > HEARTBEAT_LINE_MAX) {
        if (!discarding) this.events.malformed(watch.server, buffer.slice(0, 80));
        discarding = true;
        buffer = '';
      }
    });
  }

  /** One line from a server: true when it was a heartbeat. */
  #line(server: string, line: string): boolean {
    const text = line.trim();
    if (text === '') return false;
    const malformed = () => (this.events.malformed(server, text.slice(0, 80)), false);
    if (text.length > HEARTBEAT_LINE_MAX) return malformed();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return malformed();
    }
    const parsed = heartbeatSchema.safeParse(value);
    if (!parsed.success) return malformed();
    this.events.heartbeat(server, parsed.data);
    return true;
  }
}
