import net from 'node:net';
import type { Heartbeat, ReporterUpdate } from './heartbeat.ts';

export interface ReporterOptions {
  /** Where the agents' monitoring connections arrive. */
  listen: { host: string; port: number };
  mpsCapacity: number;
  connectionCapacity: number;
  intervalMs?: number;
  /** A TCP echo service on listen.host:echoPort whose open connections are reported. */
  echoPort?: number;
  /** More addresses the echo service listens on, same port (the TSAs a server holds). */
  echoAlsoOn?: string[];
}

export interface Reporter {
  update(change: ReporterUpdate): void;
  heartbeat(): Heartbeat;
  /** Open monitoring connections (agents watching) and open echo connections. */
  stats(): { monitors: number; echoConnections: number; echoAccepted: number };
  monitorAddress(): net.AddressInfo;
  echoAddress(): net.AddressInfo | null;
  close(): Promise<void>;
}

function listen(server: net.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * What an application server runs: it accepts the IPFE agents' monitoring connections and writes
 * a heartbeat on each every intervalMs, reporting the load it is told (and, with an echo service,
 * its open echo connections).
 */
export async function createReporter(options: ReporterOptions): Promise<Reporter> {
  const intervalMs = options.intervalMs ?? 500;
  const values = {
    mps: 0,
    mpsCapacity: options.mpsCapacity,
    connections: null as number | null,
    connectionCapacity: options.connectionCapacity,
    state: 'normal' as Heartbeat['state'],
    silent: false,
  };
  const monitors = new Set<net.Socket>();
  const echoSockets = new Set<net.Socket>();
  let echoAccepted = 0;

  const heartbeat = (): Heartbeat => ({
    mps: values.mps,
    mpsCapacity: values.mpsCapacity,
    connections: values.connections ?? echoSockets.size,
    connectionCapacity: values.connectionCapacity,
    state: values.state,
  });
  const send = (socket: net.Socket) => {
    // A watcher that does not read gets no more than one pending line.
    if (!values.silent && socket.writableLength === 0)
      socket.write(`${JSON.stringify(heartbeat())}\n`);
  };

  const monitorServer = net.createServer((socket) => {
    monitors.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => monitors.delete(socket));
    socket.on('data', () => {}); // agents send nothing; read to keep the socket flowing
    send(socket);
  });
  const timer = setInterval(() => monitors.forEach(send), intervalMs);
  timer.unref();

  const echoServers: net.Server[] = [];
  if (options.echoPort !== undefined) {
    let port = options.echoPort;
    for (const host of [options.listen.host, ...(options.echoAlsoOn ?? [])]) {
      const echoServer = net.createServer((socket) => {
        echoAccepted++;
        echoSockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => echoSockets.delete(socket));
        socket.pipe(socket);
      });
      await listen(echoServer, host, port);
      echoServers.push(echoServer);
      port = (echoServer.address() as net.AddressInfo).port;
    }
  }
  await listen(monitorServer, options.listen.host, options.listen.port);

  const closeServer = (server: net.Server) =>
    new Promise<void>((resolve) => server.close(() => resolve()));

  return {
    update(change) {
      if (change.mps !== undefined) values.mps = change.mps;
      if (change.connections !== undefined) values.connections = change.connections;
      if (change.state !== undefined) values.state = change.state;
      if (change.mpsCapacity !== undefined) values.mpsCapacity = change.mpsCapacity;
      if (change.connectionCapacity !== undefined)
        values.connectionCapacity = change.connectionCapacity;
      if (change.silent !== undefined) values.silent = change.silent;
      monitors.forEach(send);
    },
    heartbeat,
    stats: () => ({ monitors: monitors.size, echoConnections: echoSockets.size, echoAccepted }),
    monitorAddress: () => monitorServer.address() as net.AddressInfo,
    echoAddress: () => (echoServers[0]?.address() as net.AddressInfo | undefined) ?? null,
    async close() {
      clearInterval(timer);
      for (const socket of [...monitors, ...echoSockets]) socket.destroy();
      await Promise.all([monitorServer, ...echoServers].map(closeServer));
    },
  };
}
