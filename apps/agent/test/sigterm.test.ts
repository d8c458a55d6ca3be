import { beforeAll, describe, expect, it } from 'vitest';
import { ask, hold, sleep } from './loopback-peers.ts';
import { controlOf, loopbackLab } from './loopback-lab.ts';
import { until } from './poll.ts';

const lab = loopbackLab(import.meta.url);

beforeAll(async () => {
  await lab.startAppServers('hold');
});

describe('SIGTERM', () => {
  it('stops accepting, lets an open connection finish, then exits 0', async () => {
    // Only A1 configured: no mate to wait for.
    const document = lab.document((c) => (c.options.ipfe.A2 = null));
    const child = lab.spawnAgent({ slot: 'A1', host: lab.a1, dir: lab.stateDir() });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const control = controlOf(lab.a1);
    await until('agent up', () => control.health());
    expect((await control.push(document)).status).toBe(200);
    const open = await until('a connection through the TSA', () => hold(lab.tsa, lab.client(1)));
    child.kill('SIGTERM');
    await until('new connections refused', () =>
      ask(lab.tsa).then(
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
