/**
 * An application server's service for the failover benchmark: on each connection it writes the
 * address it sees the connection come from (which IPFE forwarded it, when the IPFE masquerades),
 * then echoes. `node name-echo.ts HOST PORT`.
 */
import net from 'node:net';

const [host, port] = process.argv.slice(2);
net
  .createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.write(`${socket.remoteAddress}\n`);
    socket.pipe(socket);
  })
  .listen({ host, port: Number(port), backlog: 1024 });
