/**
 * A client inside the test's client namespace, driven by lines on stdin and answering one JSON
 * line each: `tally TSA N` (N short connections: which server answered), `hold TSA N` (N open
 * connections), `alive` (how many held ones still answer, by server), `release` (closes the
 * held ones), `push URL TOKEN FILE`, `status URL TOKEN` (open connections by server),
 * `metrics URL TOKEN` (refusals and bytes in /metrics), `alarms URL TOKEN` (the agent's active
 * alarms, `code subject` → 1), `connect TSA PORT` (one connection: `ok`, or how it failed —
 * `ECONNREFUSED`, `EHOSTUNREACH`, … or `timeout` after 2 s).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

const held: { socket: net.Socket; server: string }[] = [];

function connect(tsa: string): Promise<{ socket: net.Socket; server: string } | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: tsa, port: 3868 });
    socket.setEncoding('utf8');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, 2000);
    socket.on('data', function onData(d: string) {
      text += d;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve({ socket, server: text.slice(0, nl) });
    });
    socket.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}

function alive(entry: { socket: net.Socket }): Promise<boolean> {
  return new Promise((resolve) => {
    if (entry.socket.destroyed) return resolve(false);
    const probe = `p${Math.random()}`;
    // 4 s: a probe lost once is retransmitted by TCP after 0.2, 0.4, 0.8, 1.6 s; at 1.5 s a loaded
    // CI machine failed all 30 held connections of kernel.test.ts that answered a moment later.
    const timer = setTimeout(() => resolve(false), 4000);
    const onData = (d: string) => {
      if (!d.includes(probe)) return;
      clearTimeout(timer);
      entry.socket.off('data', onData);
      resolve(true);
    };
    entry.socket.on('data', onData);
    entry.socket.once('close', () => resolve(false));
    entry.socket.write(probe);
  });
}

/** How one connection to `host:port` went: `ok`, its error's code, or `timeout` (2 s). */
function connectOnce(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => done('timeout'), 2000);
    const done = (outcome: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    socket.once('connect', () => done('ok'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

const count = (names: string[]) =>
  names.reduce<Record<string, number>>((t, n) => ((t[n] = (t[n] ?? 0) + 1), t), {});

createInterface({ input: process.stdin }).on('line', async (line) => {
  const [command, a, b, c] = line.trim().split(' ');
  let result: unknown;
  if (command === 'tally') {
    const names: string[] = [];
    for (let i = 0; i < Number(b); i++) {
      const entry = await connect(a!);
      names.push(entry?.server ?? 'none');
      entry?.socket.destroy();
    }
    result = count(names);
  } else if (command === 'hold') {
    for (let i = 0; i < Number(b); i++) {
      const entry = await connect(a!);
      if (entry) held.push(entry);
    }
    result = count(held.map((h) => h.server));
  } else if (command === 'alive') {
    const answers = await Promise.all(held.map(alive));
    result = count(held.filter((_, i) => answers[i]).map((h) => h.server));
  } else if (command === 'release') {
    const released = held.splice(0);
    for (const h of released) h.socket.destroy();
    result = { released: released.length };
  } else if (command === 'status') {
    const response = await fetch(`${a}/v1/status`, { headers: { authorization: `Bearer ${b}` } });
    const status = (await response.json()) as {
      targetSets: { servers: { address: string; active: number }[] }[];
    };
    result = Object.fromEntries(status.targetSets[0]!.servers.map((s) => [s.address, s.active]));
  } else if (command === 'mateflows') {
    // The flows the agent carries and those of its mate it knows (direct path), from its status.
    // An agent still starting answers nothing yet: none known.
    const status = (await fetch(`${a}/v1/status`, { headers: { authorization: `Bearer ${b}` } })
      .then((r) => r.json())
      .catch(() => null)) as { connections: number; counters: { mateFlows?: number } } | null;
    result = { connections: status?.connections ?? 0, mateFlows: status?.counters.mateFlows ?? 0 };
  } else if (command === 'metrics') {
    // Refusals of Target Set 1 with no server to take them, and bytes, as /metrics exports them.
    const response = await fetch(`${a}/metrics`, { headers: { authorization: `Bearer ${b}` } });
    const lines = (await response.text()).split('\n');
    const value = (pattern: RegExp) =>
      Number(
        lines
          .find((l) => pattern.test(l))
          ?.split(' ')
          .at(-1) ?? NaN,
      );
    const opened = lines
      .filter((l) => /^ipfe_connections_opened_total\{.*target_set="1"/.test(l))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    result = {
      opened,
      noServer: value(/^ipfe_connections_refused_total\{.*target_set="1".*reason="no-server"/),
      bytesIn: value(/^ipfe_bytes_total\{.*direction="in"/),
      bytesOut: value(/^ipfe_bytes_total\{.*direction="out"/),
    };
  } else if (command === 'alarms') {
    const status = (await fetch(`${a}/v1/status`, { headers: { authorization: `Bearer ${b}` } })
      .then((r) => r.json())
      .catch(() => null)) as { alarms: { code: number; server?: string | null }[] } | null;
    result = Object.fromEntries(
      (status?.alarms ?? []).map((alarm) => [`${alarm.code} ${alarm.server ?? ''}`.trim(), 1]),
    );
  } else if (command === 'connect') {
    result = { [await connectOnce(a!, Number(b))]: 1 };
  } else if (command === 'push') {
    const response = await fetch(`${a}/v1/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${b}`, 'content-type': 'application/json' },
      body: readFileSync(c!, 'utf8'),
    }).catch((err: Error) => ({ status: err.message }));
    result = { status: (response as { status: unknown }).status };
  }
  console.log(JSON.stringify(result ?? { error: `unknown command ${command}` }));
});
