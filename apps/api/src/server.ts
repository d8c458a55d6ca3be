import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';
import { ensureAdmin, prepareDataDir } from './bootstrap.ts';
import { flagsAsEnv, readEnv } from './env.ts';
import { readFileSync } from 'node:fs';
import { prettyLogStream } from './pretty-log.ts';
import { isNoPrimaryYet } from './store/unavailable.ts';

/** Runs the OAM server: environment, data folder, logger, listen, graceful close. */
async function main() {
  const flags = flagsAsEnv(process.argv.slice(2));
  const parsed = 'problems' in flags ? flags : readEnv({ ...process.env, ...flags.env });
  if ('problems' in parsed) {
    for (const line of parsed.problems) console.error(`ipfe-oam: ${line}`);
    process.exit(2);
  }
  const { env } = parsed;
  // npm runs workspace scripts in the workspace folder; relative paths mean the caller's folder.
  const base = process.env.INIT_CWD ?? process.cwd();
  const dataDir = isAbsolute(env.IPFE_DATA_DIR)
    ? env.IPFE_DATA_DIR
    : resolve(base, env.IPFE_DATA_DIR);
  const data = prepareDataDir(dataDir, env.IPFE_AGENT_TOKEN);
  const readPem = (file: string) =>
    readFileSync(isAbsolute(file) ? file : resolve(base, file), 'utf8');
  const https =
    env.IPFE_TLS_CERT && env.IPFE_TLS_KEY
      ? { cert: readPem(env.IPFE_TLS_CERT), key: readPem(env.IPFE_TLS_KEY) }
      : undefined;
  const prettyLogs = env.LOG_FORMAT === 'pretty' || (!env.LOG_FORMAT && process.stdout.isTTY);

  const app = await whenWritable(async () => {
    const built = await buildApp({
      databaseFile: data.databaseFile,
      databaseUrl: env.IPFE_DATABASE_URL,
      sessionSecret: data.sessionSecret,
      secureCookies: env.IPFE_SECURE_COOKIES === 'true' || Boolean(https),
      https,
      webRoot: fileURLToPath(new URL('../../web/dist/', import.meta.url)),
      agentToken: data.agentToken,
      agentSync: {
        pollIntervalMs: env.IPFE_STATUS_INTERVAL_MS,
        startGraceMs: env.IPFE_AGENT_START_GRACE_MS,
        agentCa: env.IPFE_AGENT_CA ? readPem(env.IPFE_AGENT_CA) : undefined,
      },
      logger: {
        level: env.LOG_LEVEL,
        redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'],
        ...(prettyLogs && { stream: prettyLogStream() }),
      },
    });
    try {
      await ensureAdmin(built.usersRepository, dataDir, env.IPFE_ADMIN_PASSWORD, (line) =>
        console.log(line),
      );
    } catch (err) {
      await built.close().catch(() => {});
      throw err;
    }
    return built;
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'closing');
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  await app.listen({ host: env.HOST, port: env.PORT });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : env.PORT;
  console.log(
    `IPFE OAM listening on ${https ? 'https' : 'http'}://${env.HOST}:${port} (data in ${dataDir})`,
  );
}

/**
 * Starts the OAM again while its PostgreSQL pair has no primary (a server answered read-only, or
 * is starting up: the pair is failing over), for up to a minute; a wrong URL or password, or any
 * other error, stops it at once.
 */
async function whenWritable<T>(start: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await start();
    } catch (err) {
      if (!isNoPrimaryYet(err) || Date.now() > deadline) throw err;
      console.error(`ipfe-oam: the store has no primary yet (${(err as Error).message}); waiting`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

main().catch((err: unknown) => {
  console.error('ipfe-oam: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
