/**
 * The agent's address holder alone, for address-holder.test.ts, in the namespace it runs in, on
 * `device`:
 * - `release KEPT RELEASED HOLD_MS`: holds both, lets RELEASED go after HOLD_MS, keeps KEPT 3 s
 *   more, then lets it go too;
 * - `announce-release ADDRESS`: holds ADDRESS, announces it again (as after a split brain) and
 *   at once lets it go, then waits 1 s.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { AddressHolder } from '../src/address-holder.ts';

const [scenario, device, ...addresses] = process.argv.slice(2);
const holder = new AddressHolder(device!, pino({ level: 'silent' }));
if (scenario === 'release') {
  const [kept, released, holdMs] = addresses as [string, string, string];
  await holder.hold([kept, released]);
  await sleep(Number(holdMs));
  await holder.hold([kept]);
  await sleep(3000);
  await holder.releaseAll();
} else if (scenario === 'announce-release') {
  const [address] = addresses as [string];
  await holder.hold([address]);
  holder.announce([address]);
  await holder.hold([]);
  await sleep(1000);
} else throw new Error(`no scenario ${scenario}`);
