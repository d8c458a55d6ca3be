/**
 * Runs inside the test's client namespace (`ip netns exec`), as an operator's browser and a
 * Diameter peer would: talks to the OAM and to the TSA, prints one JSON line of results.
 */
import net from 'node:net';

const [command, ...args] = process.argv.slice(2);
const oam = process.env.OAM_URL!;
const password = process.env.OAM_PASSWORD!;

async function session() {
  const response = await fetch(`${oam}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
}

function echo(tsa: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: tsa, port: 3868 });
    socket.setTimeout(1500, () => socket.destroy());
    socket.on('connect', () => socket.write('CER'));
    socket.on('data', (d) => {
      resolve(String(d) === 'CER');
      socket.destroy();
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}

async function main() {
  if (command === 'seed') {
    const headers = await session();
    const config = JSON.parse(args[0]!) as { method: string; url: string; body: unknown }[];
    for (const step of config) {
      const extra: Record<string, string> = {};
      if (step.method === 'PUT')
        extra['if-match'] =
          (await fetch(`${oam}${step.url}`, { headers })).headers.get('etag') ?? '';
      const response = await fetch(`${oam}${step.url}`, {
        method: step.method,
        headers: { ...headers, ...extra },
        body: JSON.stringify(step.body),
      });
      if (!response.ok) throw new Error(`${step.url}: ${response.status} ${await response.text()}`);
    }
    return {};
  }
  if (command === 'state') {
    const headers = await session();
    const ipfe = await (await fetch(`${oam}/api/ipfe`, { headers })).json();
    const targetSets = await (await fetch(`${oam}/api/target-sets`, { headers })).json();
    return { ipfe, targetSets };
  }
  if (command === 'agent') {
    const headers = await session();
    return (await (await fetch(`${oam}/api/ipfe/${args[0]}/status`, { headers })).json()) as object;
  }
  if (command === 'echo') {
    const count = Number(args[1] ?? 10);
    let ok = 0;
    for (let i = 0; i < count; i++) if (await echo(args[0]!)) ok++;
    return { ok, count };
  }
  throw new Error(`unknown command ${command}`);
}

main().then(
  (result) => {
    console.log(JSON.stringify(result));
    process.exit(0);
  },
  (err: unknown) => {
    console.log(JSON.stringify({ error: String(err) }));
    process.exit(1);
  },
);
