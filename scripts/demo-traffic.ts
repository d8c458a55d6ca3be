import net from 'node:net';
import { parseArgs } from 'node:util';
import { LOCAL } from './local-stack.ts';

/**
 * A steady, bounded stream of client connections to the sample TSAs so that the Status page moves:
 * new connections at --rate per second (each a 100-byte request and its echo), plus --hold
 * long-lived connections that talk every few seconds. Stops by itself after --duration seconds.
 */
const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '20' },
    hold: { type: 'string', default: '30' },
    duration: { type: 'string', default: '300' },
  },
});
const rate = Math.min(500, Math.max(1, Number(values.rate)));
const holdCount = Math.min(1000, Math.max(0, Number(values.hold)));
const durationS = Math.min(3600, Math.max(1, Number(values.duration)));
const tsas = [LOCAL.tsas.leastLoad, LOCAL.tsas.hash];
const stats = { opened: 0, answered: 0, failed: 0 };
const held = new Set<net.Socket>();
const payload = Buffer.alloc(100, 'x');

function once(tsa: string) {
  const socket = net.connect({ host: tsa, port: LOCAL.diameterPort });
  stats.opened++;
  let received = 0;
  socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  socket.on('connect', () => socket.write(payload));
  socket.on('data', (d) => {
    received += d.length;
    if (received >= payload.length) {
      stats.answered++;
      socket.end();
    }
  });
  socket.on('error', () => {
    stats.failed++;
    socket.destroy();
  });
}

function holdOne(i: number) {
  const socket = net.connect({ host: tsas[i % tsas.length]!, port: LOCAL.diameterPort });
  held.add(socket);
  const talk = setInterval(() => socket.write('watchdog\n'), 3000);
  socket.on('data', () => {});
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    clearInterval(talk);
    held.delete(socket);
    if (!finished) setTimeout(() => holdOne(i), 1000);
  });
}

let finished = false;
console.log(
  `demo traffic: ${rate} new connections/s and ${holdCount} held, for ${durationS} s, to ${tsas.join(' and ')}`,
);
for (let i = 0; i < holdCount; i++) holdOne(i);
let tick = 0;
const sender = setInterval(() => once(tsas[tick++ % tsas.length]!), 1000 / rate);
const progress = setInterval(
  () =>
    console.log(
      `opened ${stats.opened}, answered ${stats.answered}, failed ${stats.failed}, held open ${held.size}`,
    ),
  5000,
);
setTimeout(() => {
  finished = true;
  clearInterval(sender);
  clearInterval(progress);
  for (const socket of held) socket.destroy();
  console.log(`done: opened ${stats.opened}, answered ${stats.answered}, failed ${stats.failed}`);
  setTimeout(() => process.exit(0), 500);
}, durationS * 1000);
