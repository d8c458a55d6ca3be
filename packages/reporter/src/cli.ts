import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { formatHostPort, parseHostPort } from '@ipfe/schema';
import { z } from 'zod';
import { reporterUpdateSchema } from './heartbeat.ts';
import {
  deviceOf,
  holdTsa,
  type HeldTsa,
  holdTsaProblems,
  parseHoldTsa,
  TSA_TABLE,
} from './hold-tsa.ts';
import { createReporter } from './reporter.ts';

const USAGE =
  'usage: ipfe-reporter --listen HOST:PORT --mps-capacity N --connection-capacity N [--interval-ms 500] [--echo PORT] [--hold-tsa ADDR[@DEV][,ADDR…] [--tsa-device DEV]]';

const positive = (flag: string) =>
  z
    .string({ error: `${flag} is required` })
    .transform(Number)
    .pipe(
      z
        .number({ error: `${flag} must be a positive number` })
        .positive({ error: `${flag} must be a positive number` }),
    );

const flagsSchema = z.object({
  listen: z
    .string({ error: '--listen is required (HOST:PORT)' })
    .transform(
      (v, ctx) =>
        parseHostPort(v) ??
        (ctx.addIssue({ code: 'custom', message: `--listen must be HOST:PORT, not ${v}` }),
        z.NEVER),
    ),
  'mps-capacity': positive('--mps-capacity'),
  'connection-capacity': positive('--connection-capacity').pipe(
    z.number().int({ error: '--connection-capacity must be a whole number' }),
  ),
  'interval-ms': z.coerce
    .number()
    .int({ error: '--interval-ms must be a whole number of milliseconds from 10 to 60000' })
    .min(10, { error: '--interval-ms must be a whole number of milliseconds from 10 to 60000' })
    .max(60000, { error: '--interval-ms must be a whole number of milliseconds from 10 to 60000' })
    .default(500),
  echo: z.coerce
    .number()
    .int({ error: '--echo must be a TCP port (1–65535)' })
    .min(1, { error: '--echo must be a TCP port (1–65535)' })
    .max(65535, { error: '--echo must be a TCP port (1–65535)' })
    .optional(),
  'hold-tsa': z.string().optional(),
  'tsa-device': z.string().min(1, { error: '--tsa-device must name an interface' }).optional(),
});

function fail(lines: string[]): never {
  for (const line of lines) console.error(`ipfe-reporter: ${line}`);
  console.error(USAGE);
  process.exit(2);
}

async function main() {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      options: {
        listen: { type: 'string' },
        'mps-capacity': { type: 'string' },
        'connection-capacity': { type: 'string' },
        'interval-ms': { type: 'string' },
        echo: { type: 'string' },
        'hold-tsa': { type: 'string' },
        'tsa-device': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail([(err as Error).message]);
  }
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) {
    fail(
      parsed.error.issues.map((i) =>
        i.message.startsWith('Invalid input') ? `--${i.path.join('.')} is required` : i.message,
      ),
    );
  }
  const flags = parsed.data;
  // Before anything is taken, so that a signal at any moment still undoes it (on 'exit').
  let close = () => Promise.resolve();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void close().then(() => process.exit(0)));
  }
  if (flags['tsa-device'] && !flags['hold-tsa']) fail(['--tsa-device goes with --hold-tsa']);
  let held: HeldTsa[] = [];
  if (flags['hold-tsa'] !== undefined) {
    const device = flags['tsa-device'] ?? deviceOf(flags.listen.host);
    const tsas = parseHoldTsa(flags['hold-tsa'], device);
    if ('errors' in tsas) fail(tsas.errors);
    held = tsas.held;
    const problems = holdTsaProblems(held);
    if (problems.length) {
      for (const line of problems) console.error(`ipfe-reporter: ${line}`);
      process.exit(1);
    }
    let holding;
    try {
      holding = holdTsa(held);
    } catch (err) {
      console.error(`ipfe-reporter: ${(err as Error).message}`);
      process.exit(1);
    }
    // SIGINT and SIGTERM end in process.exit below; a crash ends here too. SIGKILL: see docs/agent.md.
    process.on('exit', () => holding.release());
    console.log(
      JSON.stringify({
        msg: 'holding TSAs',
        tsa: held.map((h) => `${h.address}@${h.device}`),
        nftTable: TSA_TABLE,
      }),
    );
  }
  const reporter = await createReporter({
    listen: flags.listen,
    mpsCapacity: flags['mps-capacity'],
    connectionCapacity: flags['connection-capacity'],
    intervalMs: flags['interval-ms'],
    echoPort: flags.echo,
    echoAlsoOn: held.map((h) => h.address),
  });
  close = () => reporter.close();
  const echo = reporter.echoAddress();
  console.log(
    JSON.stringify({
      msg: 'reporting',
      monitoring: formatHostPort(flags.listen.host, reporter.monitorAddress().port),
      echo: echo ? formatHostPort(flags.listen.host, echo.port) : null,
    }),
  );

  // JSON lines on stdin change what is reported: {"state":"stressed"}, {"mps":900}.
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === '') return;
    let change: unknown;
    try {
      change = JSON.parse(line);
    } catch {
      console.error(`ipfe-reporter: ignored a line that is not JSON: ${line.slice(0, 80)}`);
      return;
    }
    const update = reporterUpdateSchema.safeParse(change);
    if (!update.success) {
      console.error(
        `ipfe-reporter: ignored ${line.slice(0, 80)}: ${update.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      );
      return;
    }
    reporter.update(update.data);
  });
}

void main();
