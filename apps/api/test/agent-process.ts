import { spawn, type ChildProcess } from 'node:child_process';

const agentBin = new URL('../../agent/bin/ipfe-agent.js', import.meta.url).pathname;

/** A real IPFE agent as its own process: slot, control address, state folder, push token. */
export function spawnAgent(options: {
  slot: string;
  control: string;
  stateDir: string;
  token: string;
}): ChildProcess {
  return spawn(
    process.execPath,
    [
      agentBin,
      '--slot',
      options.slot,
      '--control',
      options.control,
      '--state-dir',
      options.stateDir,
    ],
    {
      env: { ...process.env, IPFE_AGENT_TOKEN: options.token, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    },
  );
}
