/**
 * A Diameter client (the `diameter` package) for the failover tests, run as
 * `node --import tsx diameter-client.ts HOST PORT [--local-address A] [--local-port P]
 *  [--interval-ms N] [--origin-host H] [--realm R]`, locally or under `ip netns exec`.
 * Connects, sends CER, waits for CEA, then keeps one DWR outstanding at a time, one every
 * interval (default 1000 ms), as a Diameter watchdog does (RFC 3539). Prints, one line each:
 *   connected ADDRESS PORT      the connection's own end
 *   cea ORIGIN-HOST HOST-IP     the server's CEA, Result-Code 2001
 *   dwa N ORIGIN-HOST           the answer to DWR number N (from 1)
 *   stats cea=0|1 dwr=N dwa=N   in answer to `stats` on stdin
 *   disconnected                after `disconnect` on stdin: DPR sent, DPA received; exits 0
 *   lost REASON                 the connection closed, failed, or an answer was more than
 *                               3 intervals late; exits 1
 *   refused RESULT-CODE         a CEA other than 2001; exits 2
 */
import diameter from 'diameter';
import { createInterface } from 'node:readline';
import { avp, baseRequest, plainAddress, SUCCESS } from './messages.ts';

function parse(argv: string[]) {
  const positional: string[] = [];
  const flags: Record<string, string> = {
    'interval-ms': '1000',
    'origin-host': 'client.ipfe.test',
    realm: 'ipfe.test',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = /^--(local-address|local-port|interval-ms|origin-host|realm)$/.exec(argv[i]!);
    if (flag) flags[flag[1]!] = argv[++i] ?? '';
    else positional.push(argv[i]!);
  }
  const [host, port] = positional;
  const numeric = (v: string | undefined) => v === undefined || /^\d+$/.test(v);
  if (
    !host ||
    !port ||
    positional.length !== 2 ||
    !numeric(port) ||
    !numeric(flags['local-port']) ||
    !numeric(flags['interval-ms']) ||
    Number(flags['interval-ms']) < 10
  ) {
    console.error(
      'usage: diameter-client.ts HOST PORT [--local-address A] [--local-port P] [--interval-ms N] [--origin-host H] [--realm R]',
    );
    process.exit(2);
  }
  return {
    host,
    port: Number(port),
    localAddress: flags['local-address'],
    localPort: flags['local-port'] === undefined ? undefined : Number(flags['local-port']),
    intervalMs: Number(flags['interval-ms']),
    originHost: flags['origin-host']!,
    realm: flags.realm!,
  };
}

const args = parse(process.argv.slice(2));
const lateMs = 3 * args.intervalMs;
const counts = { cea: 0, dwr: 0, dwa: 0 };
let outstanding = false;
let leaving = false;
let failure = 'connection closed';

function end(line: string, code: number): never {
  console.log(line);
  process.exit(code);
}

const identity: diameter.Avp[] = [
  ['Origin-Host', args.originHost],
  ['Origin-Realm', args.realm],
];

const socket = diameter.createConnection(
  {
    host: args.host,
    port: args.port,
    localAddress: args.localAddress,
    localPort: args.localPort,
    timeout: lateMs,
  },
  () => {
    console.log(`connected ${plainAddress(socket.localAddress)} ${socket.localPort}`);
    void exchange();
  },
);
const connection = socket.diameterConnection;
socket.setNoDelay(true);
socket.on('error', (err) => (failure = err.message));
socket.on('close', () => {
  if (!leaving) end(`lost ${failure}`, 1);
});

async function exchange() {
  const cer = baseRequest(connection, 'Capabilities-Exchange', [
    ...identity,
    ['Host-IP-Address', plainAddress(socket.localAddress)],
    ['Vendor-Id', 0],
    ['Product-Name', 'ipfe-test-diameter-client'],
  ]);
  let cea: diameter.Message;
  try {
    cea = await connection.sendRequest(cer, lateMs);
  } catch {
    end(`lost no CEA within ${lateMs} ms`, 1);
  }
  const result = avp(cea, 'Result-Code');
  if (result !== SUCCESS) end(`refused ${result}`, 2);
  counts.cea = 1;
  console.log(`cea ${avp(cea, 'Origin-Host')} ${avp(cea, 'Host-IP-Address')}`);
  setInterval(() => void watchdog(), args.intervalMs);
}

async function watchdog() {
  if (outstanding || leaving) return;
  outstanding = true;
  const n = ++counts.dwr;
  let dwa: diameter.Message;
  try {
    dwa = await connection.sendRequest(baseRequest(connection, 'Device-Watchdog', identity));
  } catch {
    end(`lost no DWA ${n} within ${lateMs} ms`, 1);
  }
  if (leaving) return;
  const result = avp(dwa, 'Result-Code');
  if (result !== SUCCESS) end(`lost DWA ${n} answered ${result}`, 1);
  counts.dwa++;
  outstanding = false;
  console.log(`dwa ${n} ${avp(dwa, 'Origin-Host')}`);
}

async function disconnect() {
  leaving = true;
  try {
    await connection.sendRequest(
      baseRequest(connection, 'Disconnect-Peer', [...identity, ['Disconnect-Cause', 'REBOOTING']]),
    );
  } catch {
    end(`lost no DPA within ${lateMs} ms`, 1);
  }
  socket.end();
  end('disconnected', 0);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim();
  if (command === 'stats')
    console.log(`stats cea=${counts.cea} dwr=${counts.dwr} dwa=${counts.dwa}`);
  else if (command === 'disconnect' && !leaving) void disconnect();
});
