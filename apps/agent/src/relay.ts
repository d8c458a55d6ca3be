import net from 'node:net';
import type { Engine } from '@ipfe/engine';
import { parseHostPort } from '@ipfe/schema';
import type { Logger } from 'pino';

export interface RelayDeps {
  engine(): Engine | null;
  /** The TSA an application server initiates from: an owned TSA of a Target Set with initiator support that lists it. */
  tsaFor(serverAddress: string): string | null;
  log: Logger;
}

const MAX_REQUEST_LINE = 300;
const CONNECT_TIMEOUT_MS = 5000;

function plainAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The initiator relay (SPEC §4.5): an application server asks `CONNECT host:port`; the agent
 * connects from the TSA with a source port in that server's Initiator Port Range, answers
 * `OK <port>` or `ERR <reason>`, then relays bytes both ways.
 */
export class InitiatorRelay {
  #server: net.Server | null = null;
  #address: string | null = null;
  #sockets = new Set<net.Socket>();

  constructor(private readonly deps: RelayDeps) {}

  async listen(host: string | null, port: number): Promise<string | null> {
    if (host === this.#address && this.#server) return null;
    this.close();
    if (!host) return null;
    const server = net.createServer((socket) => this.#handle(socket));
    return new Promise((resolve) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        this.deps.log.warn({ host, port, err: err.code }, 'initiator relay cannot listen');
        resolve(err.code ?? err.message);
      });
      server.listen({ host, port }, () => {
        this.#server = server;
        this.#address = host;
        resolve(null);
      });
    });
  }

  close(): void {
    this.#server?.close();
    this.#server = null;
    this.#address = null;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  #handle(socket: net.Socket) {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy());
    let request = '';
    const onData = (chunk: Buffer) => {
      request += chunk.toString('latin1');
      const newline = request.indexOf('\n');
      if (newline < 0) {
        if (request.length > MAX_REQUEST_LINE) this.#refuse(socket, 'request line too long');
        return;
      }
      socket.off('data', onData);
      socket.pause();
      const rest = Buffer.from(request.slice(newline + 1), 'latin1');
      this.#connect(socket, request.slice(0, newline).trim(), rest);
    };
    socket.on('data', onData);
  }

  #refuse(socket: net.Socket, reason: string) {
    socket.end(`ERR ${reason}\n`);
  }

  #connect(socket: net.Socket, line: string, rest: Buffer) {
    const match = /^CONNECT (\S+)$/.exec(line);
    const target = match ? parseHostPort(match[1]!) : null;
    if (!target) return this.#refuse(socket, 'expected CONNECT host:port');
    const server = plainAddress(socket.remoteAddress);
    const engine = this.deps.engine();
    const tsa = this.deps.tsaFor(server);
    if (!engine || !tsa)
      return this.#refuse(socket, `${server} may not initiate through this IPFE`);
    const allocation = engine.allocatePort(tsa, server);
    if (!allocation.ok) return this.#refuse(socket, allocation.reason);
    let released = false;
    const release = () => {
      if (!released) engine.releasePort(tsa, allocation.port);
      released = true;
    };
    const outbound = net.connect({
      host: target.host,
      port: target.port,
      localAddress: tsa,
      localPort: allocation.port,
    });
    outbound.setTimeout(CONNECT_TIMEOUT_MS, () => outbound.destroy(new Error('connect timeout')));
    outbound.once('error', (err: NodeJS.ErrnoException) => {
      release();
      if (outbound.connecting || !outbound.remoteAddress)
        this.#refuse(socket, err.code ?? 'connect failed');
      else socket.destroy();
    });
    outbound.once('connect', () => {
      outbound.setTimeout(0);
      socket.setTimeout(0);
      this.deps.log.info(
        { server, tsa, port: allocation.port, target: match![1] },
        'initiator connection',
      );
      socket.write(`OK ${allocation.port}\n`);
      if (rest.length > 0) outbound.write(rest);
      outbound.on('error', () => outbound.destroy());
      outbound.once('close', () => {
        release();
        socket.destroy();
      });
      socket.once('close', () => outbound.destroy());
      socket.pipe(outbound);
      outbound.pipe(socket);
      socket.resume();
    });
  }
}
