/**
 * The dataplane benchmark's client, run inside the client's network namespace. One JSON command a
 * line on stdin, one JSON answer a line on stdout:
 *
 * `{"op":"conns","targets":[["10.0.0.1",3868]],"rate":1000,"seconds":8,"bytes":100}`: new
 * connections at a paced rate, each sending `bytes` and waiting for their echo, then closing
 * (FIN); answers counts and the latency (connect to echo) percentiles in µs.
 */
import net from 'node:net';
import { createInterface } from 'node:readline';

interface ConnsCommand {
  op: 'conns';
  targets: [string, number][];
  rate: number;
  seconds: number;
  bytes: number;
  timeoutMs?: number;
  maxInFlight?: number;
}

const now = () => Number(process.hrtime.bigint()) / 1000;

function percentile(sorted: Float64Array, p: number) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

function conns(command: ConnsCommand): Promise<Record<string, unknown>> {
  const total = Math.round(command.rate * command.seconds);
  const timeoutMs = command.timeoutMs ?? 3000;
  const maxInFlight = command.maxInFlight ?? 4000;
  const payload = Buffer.alloc(command.bytes, 0x61);
  const latencies = new Float64Array(total);
  let ok = 0;
  let failed = 0;
  let timeouts = 0;
  let refused = 0;
  let notLaunched = 0;
  let launched = 0;
  let inFlight = 0;
  const start = now();

  return new Promise((resolve) => {
    let finishing = false;
    const finish = () => {
      if (!finishing || inFlight > 0) return;
      const sorted = latencies.subarray(0, ok).sort();
      resolve({
        launched,
        ok,
        failed,
        timeouts,
        refused,
        notLaunched,
        wallMs: (now() - start) / 1000,
        p50Us: percentile(sorted, 50),
        p99Us: percentile(sorted, 99),
        maxUs: sorted.length ? sorted[sorted.length - 1] : null,
      });
    };
    const one = (target: [string, number]) => {
      const t0 = now();
      inFlight++;
      let received = 0;
      let done = false;
      const socket = net.connect({ host: target[0], port: target[1], noDelay: true });
      socket.setTimeout(timeoutMs);
      socket.on('connect', () => socket.write(payload));
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (!done && received >= command.bytes) {
          done = true;
          latencies[ok++] = now() - t0;
          socket.end();
        }
      });
      socket.on('timeout', () => {
        timeouts++;
        socket.destroy();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET') refused++;
      });
      socket.on('close', () => {
        inFlight--;
        if (!done) failed++;
        finish();
      });
    };
    const tick = () => {
      const due = Math.min(total, Math.floor(((now() - start) / 1e6) * command.rate));
      while (launched + notLaunched < due) {
        if (inFlight >= maxInFlight) {
          notLaunched++;
          continue;
        }
        one(command.targets[launched % command.targets.length]!);
        launched++;
      }
      if (launched + notLaunched >= total) {
        clearInterval(timer);
        finishing = true;
        finish();
      }
    };
    const timer = setInterval(tick, 1);
  });
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const command = JSON.parse(line) as ConnsCommand | { op: 'quit' };
    if (command.op === 'quit') process.exit(0);
    const answer = command.op === 'conns' ? await conns(command) : { error: 'unknown op' };
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
