/**
 * An application server's service for the direct-path tests: on each connection it writes its
 * name, prints `peer ADDRESS PORT` (the source it sees) on stdout, then echoes.
 * `node --import tsx direct-server.ts NAME PORT`.
 */
import net from 'node:net';

const [name, port] = process.argv.slice(2);
net
  .createServer((socket) => {
    socket.on('error', () => socket.destroy());
    console.log(`peer ${socket.remoteAddress} ${socket.remotePort}`);
    socket.write(`${name}\n`);
    socket.pipe(socket);
  })
  .listen({ port: Number(port), backlog: 1024 });
