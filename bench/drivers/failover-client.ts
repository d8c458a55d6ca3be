/**
 * The failover benchmark's client, inside the client's network namespace. JSON commands on stdin,
 * one JSON answer a line on stdout. It tells which IPFE forwarded a connection by the address the
 * server saw (the IPFE's own when it masquerades) or, failing that, by the MAC address the client's
 * ARP table holds for the TSA.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

interface Nodes {
  tsa: string;
  port: number;
  /** IPFE name → its address and MAC. */
  ipfe: Record<string, { address: string; mac: string }>;
}
let nodes: Nodes;
const held: net.Socket[] = [];
const now = () => Number(process.hrtime.bigint()) / 1e6;

function arpMac(address: string): string | null {
  for (const line of readFileSync('/proc/net/arp', 'utf8').split('\n').slice(1)) {
    const [ip, , flags, mac] = line.trim().split(/\s+/);
    if (ip === address && flags !== '0x0') return mac!.toLowerCase();
  }
  return null;
}

function via(peer: string): string {
  for (const [name, n] of Object.entries(nodes.ipfe)) if (n.address === peer) return name;
  const mac = arpMac(nodes.tsa);
  for (const [name, n] of Object.entries(nodes.ipfe)) if (n.mac === mac) return name;
  return 'unknown';
}

/** One connection: which IPFE forwarded it, or null when it failed; kept open when `keep`. */
function probe(
  timeoutMs: number,
  keep = false,
): Promise<{ via: string; socket: net.Socket } | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: nodes.tsa, port: nodes.port, noDelay: true });
    socket.setEncoding('utf8');
    let text = '';
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    const onData = (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      const answer = { via: via(text.slice(0, nl)), socket };
      if (!keep) socket.destroy();
      resolve(answer);
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}

/** Whether a held connection still carries bytes both ways. */
function alive(socket: net.Socket, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(false);
    const token = `p${Math.random().toString(36).slice(2)}`;
    let text = '';
    const done = (value: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(value);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    const onData = (d: string) => {
      text += d;
      if (text.includes(token)) done(true);
    };
    socket.on('data', onData);
    socket.once('close', () => done(false));
    socket.write(token);
  });
}

const count = (names: string[]) =>
  names.reduce<Record<string, number>>((t, n) => ((t[n] = (t[n] ?? 0) + 1), t), {});

async function handle(command: Record<string, unknown>): Promise<unknown> {
  switch (command.op) {
    case 'nodes':
      nodes = command.nodes as Nodes;
      return { ok: true };
    case 'probe': {
      const p = await probe(Number(command.timeoutMs ?? 1000));
      return { via: p?.via ?? null };
    }
    case 'waitVia': {
      const deadline = now() + Number(command.timeoutMs);
      while (now() < deadline) {
        const p = await probe(1000);
        if (p?.via === command.via) return { ok: true };
        await new Promise((r) => setTimeout(r, 100));
      }
      return { ok: false };
    }
    case 'hold': {
      const vias: string[] = [];
      for (let i = 0; i < Number(command.n); i++) {
        const p = await probe(2000, true);
        if (p) {
          held.push(p.socket);
          vias.push(p.via);
        }
      }
      return count(vias);
    }
    case 'heldAlive': {
      // Each held connection, twice: how many still carry bytes both ways.
      const twice = async (s: net.Socket) => (await alive(s, 1000)) && alive(s, 1000);
      return {
        held: held.length,
        alive: (await Promise.all(held.map(twice))).filter(Boolean).length,
      };
    }
    case 'drop':
      for (const s of held.splice(0)) s.destroy();
      return { ok: true };
    case 'trial': {
      // Kill the active agent (`pid`) or run `cut` (a command that cuts its link), then open a
      // connection every `everyMs` until one goes through the mate; then ask every held
      // connection whether it still works.
      const mate = String(command.mate);
      const everyMs = Number(command.everyMs ?? 5);
      const limitMs = Number(command.limitMs ?? 10_000);
      // Which IPFE the client's ARP entry for the TSA names as the trial starts.
      const arpBefore = via('');
      const t0 = now();
      if (Array.isArray(command.cut)) {
        const [file, ...args] = command.cut as string[];
        execFileSync(file!, args, { stdio: 'ignore' });
      } else process.kill(-Number(command.pid), 'SIGKILL');
      let failoverMs: number | null = null;
      let probes = 0;
      let failed = 0;
      let firstFailedMs: number | null = null;
      let lastOldMs: number | null = null;
      const inFlight = new Set<Promise<unknown>>();
      while (failoverMs === null && now() - t0 < limitMs) {
        probes++;
        const started = now() - t0;
        const p = probe(1000).then((r) => {
          if (!r) {
            failed++;
            firstFailedMs ??= started;
          } else if (r.via === mate) failoverMs ??= now() - t0;
          else lastOldMs = Math.max(lastOldMs ?? 0, started);
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        await new Promise((r) => setTimeout(r, everyMs));
      }
      // The held connections are asked at once (the probes still in flight finish meanwhile),
      // twice: a survivor goes on exchanging data through the mate.
      const twice = async (s: net.Socket) => (await alive(s, 1000)) && alive(s, 1000);
      const [answers] = await Promise.all([Promise.all(held.map(twice)), Promise.all(inFlight)]);
      return {
        arpBefore,
        failoverMs,
        probes,
        failed,
        firstFailedMs,
        lastOldMs,
        held: held.length,
        survived: answers.filter(Boolean).length,
      };
    }
    default:
      return { error: `unknown op ${String(command.op)}` };
  }
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const command = JSON.parse(line) as Record<string, unknown>;
    if (command.op === 'quit') process.exit(0);
    let answer: unknown;
    try {
      answer = await handle(command);
    } catch (err) {
      answer = { error: (err as Error).message };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
