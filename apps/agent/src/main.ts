import pino from 'pino';
import { Agent } from './agent.ts';
import { buildControlServer } from './control-server.ts';
import { DATA_PATH_TRAITS } from './data-paths.ts';
import { kernelUnavailable } from './nft.ts';
import { readFlags, USAGE } from './flags.ts';

/** ipfe-agent: flags, logger, agent, control API, signals. */
async function main() {
  const parsed = readFlags(process.argv.slice(2), process.env);
  if ('problems' in parsed) {
    for (const line of parsed.problems) console.error(`ipfe-agent: ${line}`);
    console.error(USAGE);
    process.exit(2);
  }
  const { flags } = parsed;
  const log = pino({
    name: 'ipfe-agent',
    level: process.env.LOG_LEVEL || 'info',
    base: { slot: flags.slot },
  });
  let dataplane = flags.dataplane;
  const { tools } = DATA_PATH_TRAITS[dataplane];
  if (tools.length > 0) {
    const reason = await kernelUnavailable(tools);
    if (reason) {
      log.warn({ reason, dataplane }, 'kernel data path unavailable: forwarding in user space');
      dataplane = 'userspace';
    }
  }
  log.info({ dataplane }, 'data path');
  const agent = new Agent({
    dataplane,
    syncConntrack: flags.syncConntrack && DATA_PATH_TRAITS[dataplane].conntrackSync,
    slot: flags.slot,
    stateDir: flags.stateDir,
    token: flags.token,
    relayPort: flags.relayPort,
    controlHost: flags.control.host,
    logger: log,
    addressDevice: flags.manageAddresses ?? undefined,
    hostThresholds: flags.hostThresholds,
    linkWatch: flags.linkWatch,
  });
  await agent.start();
  const control = buildControlServer(agent, flags.token, { tls: flags.tls });
  await control.listen({ host: flags.control.host, port: flags.control.port });
  log.info(
    {
      control: `${flags.control.host}:${flags.control.port}`,
      revision: agent.document?.revision ?? null,
    },
    'agent ready',
  );

  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'draining');
      void Promise.all([control.close(), agent.stop()]).then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'stop failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((err: unknown) => {
  console.error('ipfe-agent: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
