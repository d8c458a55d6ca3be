/**
 * The agent's address holder alone, for address-holder.test.ts, in the namespace it runs in:
 * holds both addresses on `device`, lets `released` go after `holdMs`, keeps `kept` 3 s more,
 * then lets it go too and leaves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { AddressHolder } from '../src/address-holder.ts';

const [device, kept, released, holdMs] = process.argv.slice(2);
const holder = new AddressHolder(device!, pino({ level: 'silent' }));
await holder.hold([kept!, released!]);
await sleep(Number(holdMs));
await holder.hold([kept!]);
await sleep(3000);
await holder.releaseAll();
