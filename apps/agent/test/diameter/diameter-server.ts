/**
 * A Diameter server (the `diameter` package) for the failover tests, run as
 * `node --import tsx diameter-server.ts HOST PORT NAME [--realm REALM]`, locally or under
 * `ip netns exec`. Answers CER with CEA (2001, Origin-Host NAME, Host-IP-Address: the address the
 * peer reached), DWR with DWA and DPR with DPA. Prints, one line each:
 *   listening HOST PORT       once it accepts connections
 *   peer ADDRESS PORT         a peer connected, its address as this server sees it
 *   cer ADDRESS PORT ORIGIN   a peer's CER (ORIGIN: its Origin-Host)
 *   closed ADDRESS PORT       a peer's connection closed
 *   stats peers=N cer=N dwr=N dpr=N   in answer to `stats` on stdin
 */
import diameter from 'diameter';
import { createInterface } from 'node:readline';
import { avp, plainAddress, SUCCESS } from './messages.ts';

function parse(argv: string[]) {
  const positional: string[] = [];
  let realm = 'ipfe.test';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--realm') realm = argv[++i] ?? '';
    else positional.push(argv[i]!);
  }
  const [host, port, name] = positional;
  if (!host || !port || !name || !realm || !/^\d+$/.test(port)) {
    console.error('usage: diameter-server.ts HOST PORT NAME [--realm REALM]');
    process.exit(2);
  }
  return { host, port: Number(port), name, realm };
}

const args = parse(process.argv.slice(2));
const counts = { peers: 0, cer: 0, dwr: 0, dpr: 0 };

const server = diameter.createServer({}, (socket) => {
  const address = plainAddress(socket.remoteAddress);
  const port = socket.remotePort;
  counts.peers++;
  console.log(`peer ${address} ${port}`);
  socket.on('diameterMessage', (event: diameter.RequestEvent) => {
    const { message, response } = event;
    const identity: diameter.Avp[] = [
      ['Result-Code', SUCCESS],
      ['Origin-Host', args.name],
      ['Origin-Realm', args.realm],
    ];
    if (message.command === 'Capabilities-Exchange') {
      counts.cer++;
      console.log(`cer ${address} ${port} ${avp(message, 'Origin-Host')}`);
      response.body = [
        ...identity,
        ['Host-IP-Address', plainAddress(socket.localAddress)],
        ['Vendor-Id', 0],
        ['Product-Name', 'ipfe-test-diameter-server'],
      ];
    } else if (message.command === 'Device-Watchdog') {
      counts.dwr++;
      response.body = identity;
    } else if (message.command === 'Disconnect-Peer') {
      counts.dpr++;
      response.body = identity;
    } else {
      response.body = [
        ['Result-Code', 'DIAMETER_COMMAND_UNSUPPORTED'],
        ['Origin-Host', args.name],
        ['Origin-Realm', args.realm],
      ];
      response.header.flags.error = true;
    }
    event.callback(response);
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => console.log(`closed ${address} ${port}`));
});

server.on('error', (err) => {
  console.error(`diameter-server: ${err.message}`);
  process.exit(1);
});
server.listen({ host: args.host, port: args.port }, () =>
  console.log(`listening ${args.host} ${args.port}`),
);

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'stats')
    console.log(
      `stats peers=${counts.peers} cer=${counts.cer} dwr=${counts.dwr} dpr=${counts.dpr}`,
    );
});
process.on('SIGTERM', () => process.exit(0));
