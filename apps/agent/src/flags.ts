import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { IPFE_SLOTS, parseHostPort, type IpfeSlot } from '@ipfe/schema';
import { z } from 'zod';
import { DATA_PATH_TRAITS, DATA_PATHS, type DataPath } from './data-paths.ts';
import { DEFAULT_HOST_THRESHOLDS, thresholdOf, type HostThresholds } from './host-resources.ts';
import { DEFAULT_LINK_WATCH, type LinkWatchSettings } from './link-watch.ts';

export const USAGE = `usage: ipfe-agent --slot A1|A2|B1|B2 --control HOST:PORT --state-dir DIR (--token-file FILE | IPFE_AGENT_TOKEN) [--relay-port 9676] [--tls-cert FILE --tls-key FILE] [--manage-addresses DEV] [--dataplane ${DATA_PATHS.join('|')}] [--sync-conntrack] [--next-hop ADDR[,ADDR]|none] [--next-hop-interval-ms 200] [--next-hop-misses 3] [--cpu-overload-pct 90] [--memory-overload-pct 90] [--disk-full-pct 90]`;

export interface AgentFlags {
  slot: IpfeSlot;
  control: { host: string; port: number };
  stateDir: string;
  token: string;
  relayPort: number;
  tls: { cert: string; key: string } | null;
  manageAddresses: string | null;
  dataplane: DataPath;
  syncConntrack: boolean;
  /** Alarms 5101–5103: the host's CPU, memory and state disk in use at which each is raised. */
  hostThresholds: HostThresholds;
  /** How the TSA-facing link (--manage-addresses) is watched: its next hops and their probes. */
  linkWatch: LinkWatchSettings;
}

const TOKEN = /^[A-Za-z0-9._~+/=-]{32,256}$/;
const TOKEN_MESSAGE = 'the token must be 32–256 characters of letters, digits and ._~+/=-';

/** A threshold in percent, 1–100, given as a flag. */
function percentFlag(flag: string, fallback: number) {
  const message = `${flag} must be a whole percentage from 1 to 100`;
  return z
    .string()
    .default(String(fallback))
    .transform(Number)
    .pipe(z.int({ error: message }).min(1, { error: message }).max(100, { error: message }));
}

/** A whole number from `min` to `max`, given as a flag. */
function wholeFlag(flag: string, fallback: number, min: number, max: number, what: string) {
  const message = `${flag} must be ${what} from ${min} to ${max}`;
  return z
    .string()
    .default(String(fallback))
    .transform(Number)
    .pipe(z.int({ error: message }).min(min, { error: message }).max(max, { error: message }));
}

const NEXT_HOP_MESSAGE = '--next-hop must be IP addresses separated by commas, or none';

const flagsSchema = z.object({
  slot: z.enum(IPFE_SLOTS, { error: `--slot must be one of ${IPFE_SLOTS.join(', ')}` }),
  control: z
    .string({ error: '--control is required (HOST:PORT)' })
    .transform(
      (v, ctx) =>
        parseHostPort(v) ??
        (ctx.addIssue({ code: 'custom', message: `--control must be HOST:PORT, not ${v}` }),
        z.NEVER),
    ),
  'state-dir': z
    .string({ error: '--state-dir is required' })
    .min(1, { error: '--state-dir is required' }),
  dataplane: z
    .enum(DATA_PATHS, {
      error: `--dataplane must be ${DATA_PATHS.slice(0, -1).join(', ')} or ${DATA_PATHS.at(-1)}`,
    })
    .default('userspace'),
  'cpu-overload-pct': percentFlag('--cpu-overload-pct', DEFAULT_HOST_THRESHOLDS.cpu.raisePct),
  'memory-overload-pct': percentFlag(
    '--memory-overload-pct',
    DEFAULT_HOST_THRESHOLDS.memory.raisePct,
  ),
  'disk-full-pct': percentFlag('--disk-full-pct', DEFAULT_HOST_THRESHOLDS.disk.raisePct),
  'next-hop': z
    .string()
    .optional()
    .transform((v, ctx): LinkWatchSettings['nextHops'] => {
      if (v === undefined) return DEFAULT_LINK_WATCH.nextHops;
      if (v === 'none') return [];
      const addresses = v.split(',').map((a) => a.trim());
      if (addresses.some((a) => isIP(a) === 0)) {
        ctx.addIssue({ code: 'custom', message: NEXT_HOP_MESSAGE });
        return z.NEVER;
      }
      return addresses;
    }),
  'next-hop-interval-ms': wholeFlag(
    '--next-hop-interval-ms',
    DEFAULT_LINK_WATCH.intervalMs,
    50,
    10_000,
    'milliseconds',
  ),
  'next-hop-misses': wholeFlag(
    '--next-hop-misses',
    DEFAULT_LINK_WATCH.misses,
    1,
    100,
    'a whole number',
  ),
  'relay-port': z
    .string()
    .default('9676')
    .transform(Number)
    .pipe(
      z
        .int({ error: '--relay-port must be a TCP port (1–65535)' })
        .min(1, { error: '--relay-port must be a TCP port (1–65535)' })
        .max(65535, { error: '--relay-port must be a TCP port (1–65535)' }),
    ),
});

/** The agent's flags and token, or one line per problem. */
export function readFlags(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { flags: AgentFlags } | { problems: string[] } {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        slot: { type: 'string' },
        control: { type: 'string' },
        'state-dir': { type: 'string' },
        'token-file': { type: 'string' },
        'relay-port': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'manage-addresses': { type: 'string' },
        dataplane: { type: 'string' },
        'sync-conntrack': { type: 'boolean' },
        'cpu-overload-pct': { type: 'string' },
        'memory-overload-pct': { type: 'string' },
        'disk-full-pct': { type: 'string' },
        'next-hop': { type: 'string' },
        'next-hop-interval-ms': { type: 'string' },
        'next-hop-misses': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return { problems: [(err as Error).message] };
  }
  const problems: string[] = [];
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => i.message));

  let token: string | undefined = env.IPFE_AGENT_TOKEN || undefined;
  const tokenFile = values['token-file'];
  if (typeof tokenFile === 'string') {
    try {
      token = readFileSync(tokenFile, 'utf8').trim();
    } catch (err) {
      problems.push(
        `--token-file cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  if (token === undefined && typeof tokenFile !== 'string') {
    problems.push('a token is required: --token-file FILE or IPFE_AGENT_TOKEN');
  } else if (token !== undefined && !TOKEN.test(token)) {
    problems.push(TOKEN_MESSAGE);
  }
  let tls: AgentFlags['tls'] = null;
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if (typeof certFile === 'string' || typeof keyFile === 'string') {
    if (typeof certFile !== 'string' || typeof keyFile !== 'string') {
      problems.push('--tls-cert and --tls-key go together');
    } else {
      try {
        tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
      } catch (err) {
        problems.push(
          `TLS certificate or key cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
    }
  }
  const dataplane = parsed.success ? parsed.data.dataplane : null;
  const traits = dataplane ? DATA_PATH_TRAITS[dataplane] : null;
  const hasDevice = typeof values['manage-addresses'] === 'string';
  if (values['sync-conntrack'] === true && (!hasDevice || !traits?.conntrackSync)) {
    const paths = DATA_PATHS.filter((p) => DATA_PATH_TRAITS[p].conntrackSync).join(' or ');
    problems.push(`--sync-conntrack needs --dataplane ${paths} and --manage-addresses DEV`);
  }
  if (traits?.needsDevice && !hasDevice) {
    problems.push(
      `--dataplane ${dataplane} needs --manage-addresses DEV (the XSI interface it forwards on)`,
    );
  }
  const nextHopFlags = ['next-hop', 'next-hop-interval-ms', 'next-hop-misses'].filter(
    (flag) => values[flag] !== undefined,
  );
  if (nextHopFlags.length > 0 && !hasDevice)
    problems.push(
      `--${nextHopFlags[0]} needs --manage-addresses DEV (the TSA-facing link whose next hops it probes)`,
    );
  if (problems.length > 0 || !parsed.success || token === undefined) return { problems };
  return {
    flags: {
      slot: parsed.data.slot,
      control: parsed.data.control,
      stateDir: parsed.data['state-dir'],
      token,
      relayPort: parsed.data['relay-port'],
      tls,
      manageAddresses:
        typeof values['manage-addresses'] === 'string' ? values['manage-addresses'] : null,
      dataplane: parsed.data.dataplane,
      syncConntrack: values['sync-conntrack'] === true,
      hostThresholds: {
        cpu: thresholdOf(parsed.data['cpu-overload-pct']),
        memory: thresholdOf(parsed.data['memory-overload-pct']),
        disk: thresholdOf(parsed.data['disk-full-pct']),
      },
      linkWatch: {
        nextHops: parsed.data['next-hop'],
        intervalMs: parsed.data['next-hop-interval-ms'],
        misses: parsed.data['next-hop-misses'],
      },
    },
  };
}
