import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressesOf,
  ask,
  documentOf,
  hold,
  removeDir,
  sleep,
  spawnAgent,
  startAppServer,
  testConfig,
  TOKEN,
  waitFor,
  type AppServer,
} from './helpers.ts';

const NET = 38;
const a = addressesOf(NET);
const dir = mkdtempSync(join(tmpdir(), 'ipfe-sigterm-'));
let servers: AppServer[];

beforeAll(async () => {
  servers = await Promise.all(a.servers.map((s) => startAppServer(s, 'hold')));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  removeDir(dir);
});

describe('SIGTERM', () => {
  it('stops accepting, lets an open connection finish, then exits 0', async () => {
    // Only A1 configured: no mate to wait for.
    const document = documentOf(
      1,
      testConfig(NET, (c) => (c.options.ipfe.A2 = null)),
    );
    const child = spawnAgent({ slot: 'A1', host: a.a1, dir });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    await waitFor('agent up', async () => (await fetch(`http://${a.a1}:8701/v1/health`)).ok);
    const pushed = await fetch(`http://${a.a1}:8701/v1/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(document),
    });
    expect(pushed.status).toBe(200);
    const open = (await waitFor('a connection through the TSA', () =>
      hold(a.tsa, a.client(1)).catch(() => null),
    ))!;
    child.kill('SIGTERM');
    await waitFor('new connections refused', () =>
      ask(a.tsa).then(
        () => false,
        () => true,
      ),
    );
    expect(await open.alive()).toBe(true); // draining: the open connection still works
    await sleep(200);
    open.socket.end();
    expect(await exited).toBe(0);
  });
});
