/** The peers of an agent on loopback: application servers with their reporters, and clients. */
import net from 'node:net';
import { createReporter, type Reporter } from '@ipfe/reporter';

export const PORT = 3868;

/**
 * An application server: a heartbeat reporter, and a service on PORT that names itself, then
 * closes ('name') or echoes ('hold'). `close` ends both, once however often it is called.
 */
export interface AppServer {
  address: string;
  reporter: Reporter;
  close(): Promise<void>;
}

export async function startAppServer(
  address: string,
  mode: 'name' | 'hold' = 'name',
): Promise<AppServer> {
  const reporter = await createReporter({
    listen: { host: address, port: 9675 },
    mpsCapacity: 1000,
    connectionCapacity: 1000,
    intervalMs: 200,
  });
  const open = new Set<net.Socket>();
  let closed: Promise<void> | undefined;
  const close = async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => service.close(() => resolve()));
    await reporter.close();
  };
  const service = net.createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    if (mode === 'name') {
      socket.end(address);
    } else {
      socket.write(`${address}\n`);
      socket.pipe(socket);
    }
  });
  await new Promise<void>((resolve, reject) => {
    service.once('error', reject);
    service.listen({ host: address, port: PORT }, () => resolve());
  });
  return { address, reporter, close: () => (closed ??= close()) };
}

/** One connection to the TSA: the name of the server that answered, or the error. */
export function ask(tsa: string, from?: { address: string; port?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: tsa,
      port: PORT,
      localAddress: from?.address,
      localPort: from?.port,
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    // Resolved at 'close', not 'end': the source port is free again only then.
    socket.on('close', (hadError) => (hadError ? undefined : resolve(answer)));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  });
}

/** A long-lived connection to the TSA that echoes after the server's name line. */
export async function hold(
  tsa: string,
  from?: string,
): Promise<{ socket: net.Socket; server: string; alive(): Promise<boolean> }> {
  const socket = net.connect({ host: tsa, port: PORT, localAddress: from });
  socket.setEncoding('utf8');
  const server = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        socket.off('data', onData);
        resolve(text.slice(0, nl));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before the server answered')));
  });
  return {
    socket,
    server,
    alive: () =>
      new Promise((resolve) => {
        if (socket.destroyed) return resolve(false);
        const probe = `ping-${Math.random()}`;
        const timer = setTimeout(() => resolve(false), 2000);
        const onData = (d: string) => {
          if (d.includes(probe)) {
            clearTimeout(timer);
            socket.off('data', onData);
            resolve(true);
          }
        };
        socket.on('data', onData);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve(false);
        });
        socket.write(probe);
      }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
