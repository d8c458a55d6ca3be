import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AGENT_START_GRACE_MS } from './services/unreachable-alarm.ts';

const blankAsUnset = (value: unknown) => (value === '' ? undefined : value);

/** The environment of the OAM server (SPEC §8), each value checked at start. */
export const envSchema = z.object({
  HOST: z.preprocess(blankAsUnset, z.string().min(1).default('127.0.0.1')),
  PORT: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a TCP port number (0–65535)' })
      .int({ error: 'must be a TCP port number (0–65535)' })
      .min(0, { error: 'must be a TCP port number (0–65535)' })
      .max(65535, { error: 'must be a TCP port number (0–65535)' })
      .default(8080),
  ),
  IPFE_DATA_DIR: z.preprocess(blankAsUnset, z.string().min(1).default('./data')),
  // Unset: the store is a SQLite file in IPFE_DATA_DIR. A PostgreSQL URL: the store is there.
  IPFE_DATABASE_URL: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, {
        error: 'must be a PostgreSQL URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE',
      })
      .optional(),
  ),
  IPFE_ADMIN_PASSWORD: z.preprocess(
    blankAsUnset,
    z.string().min(8, { error: 'must be at least 8 characters' }).max(256).optional(),
  ),
  IPFE_AGENT_TOKEN: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^[A-Za-z0-9._~+/=-]{32,256}$/, {
        error: 'must be 32–256 characters of letters, digits and ._~+/=-',
      })
      .optional(),
  ),
  IPFE_SECURE_COOKIES: z.preprocess(
    blankAsUnset,
    z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  ),
  IPFE_STATUS_INTERVAL_MS: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a whole number of milliseconds from 200 to 60000' })
      .int({ error: 'must be a whole number of milliseconds from 200 to 60000' })
      .min(200, { error: 'must be a whole number of milliseconds from 200 to 60000' })
      .max(60000, { error: 'must be a whole number of milliseconds from 200 to 60000' })
      .default(1000),
  ),
  // An agent not reached yet since the OAM started is alarmed unreachable only after this long.
  IPFE_AGENT_START_GRACE_MS: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a whole number of milliseconds from 0 to 600000' })
      .int({ error: 'must be a whole number of milliseconds from 0 to 600000' })
      .min(0, { error: 'must be a whole number of milliseconds from 0 to 600000' })
      .max(600000, { error: 'must be a whole number of milliseconds from 0 to 600000' })
      .default(AGENT_START_GRACE_MS),
  ),
  IPFE_TLS_CERT: z.preprocess(blankAsUnset, z.string().optional()),
  IPFE_TLS_KEY: z.preprocess(blankAsUnset, z.string().optional()),
  IPFE_AGENT_CA: z.preprocess(blankAsUnset, z.string().optional()),
  LOG_LEVEL: z.preprocess(
    blankAsUnset,
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
  ),
  // Unset: readable lines on a terminal, JSON otherwise.
  LOG_FORMAT: z.preprocess(
    blankAsUnset,
    z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
  ),
});

export type Env = z.output<typeof envSchema>;

/** The parsed environment, or one line per bad variable. */
export function readEnv(source: NodeJS.ProcessEnv): { env: Env } | { problems: string[] } {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    return {
      problems: result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    };
  }
  if (Boolean(result.data.IPFE_TLS_CERT) !== Boolean(result.data.IPFE_TLS_KEY)) {
    return { problems: ['IPFE_TLS_CERT and IPFE_TLS_KEY (--tls-cert and --tls-key) go together'] };
  }
  return { env: result.data };
}

/** `--tls-cert FILE --tls-key FILE` on the command line stand for IPFE_TLS_CERT and IPFE_TLS_KEY. */
export function flagsAsEnv(
  argv: string[],
): { env: Record<string, string> } | { problems: string[] } {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' } },
      strict: true,
    });
    const env: Record<string, string> = {};
    if (values['tls-cert']) env.IPFE_TLS_CERT = values['tls-cert'];
    if (values['tls-key']) env.IPFE_TLS_KEY = values['tls-key'];
    return { env };
  } catch (err) {
    return { problems: [(err as Error).message] };
  }
}
