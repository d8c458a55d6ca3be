/**
 * An agent in miniature for exit-guard.test.ts: starts an exit guard on a state folder (undoing
 * what an earlier one left), optionally holds an address on `lo` the way the agent holds a TSA,
 * says "ready", and waits to be killed (or, SIGTERM, to dismiss its guard and leave).
 */
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { ExitGuard } from '../src/exit-guard.ts';

const [stateDir, address] = process.argv.slice(2);
const guard = new ExitGuard(stateDir!, pino({ level: 'silent' }));
if (address) {
  execFileSync('ip', ['addr', 'add', `${address}/32`, 'dev', 'lo']);
  guard.set(`1 address ${address}`, ['ip', 'addr', 'del', `${address}/32`, 'dev', 'lo']);
}
// A clean stop: the agent undid everything itself (here: on purpose, nothing) and dismisses it.
process.on('SIGTERM', () => {
  guard.dismiss();
  process.exit(0);
});
console.log('ready');
setInterval(() => undefined, 60_000);
