import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** deploy/snmp (our MIB) and net-snmp's copies of SNMPv2-SMI, -TC, -CONF and -MIB. */
export const MIB_DIRS = [
  fileURLToPath(new URL('../../../deploy/snmp', import.meta.url)),
  fileURLToPath(new URL('../../../node_modules/net-snmp/lib/mibs', import.meta.url)),
];

/** One trap as snmptrapd printed it: who sent it with which security, and its varbinds by name. */
export interface ReceivedTrap {
  security: string;
  varbinds: Record<string, string>;
}

export interface Snmptrapd {
  traps: ReceivedTrap[];
  /** What it printed besides the traps (its start line, errors). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real Net-SNMP snmptrapd on `address` (udp:HOST:PORT) with `config` (snmptrapd.conf lines),
 * our MIB loaded so that it prints each varbind by its MIB name: one line per trap, fields
 * separated by tabs. Resolves once it listens.
 */
export async function startSnmptrapd(address: string, config: string[]): Promise<Snmptrapd> {
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-snmptrapd-'));
  const conf = join(dir, 'snmptrapd.conf');
  writeFileSync(conf, config.join('\n') + '\n');
  const child: ChildProcess = spawn(
    'snmptrapd',
    [
      ...['-f', '-Lo', '-C', '-c', conf, '-n'],
      ...['-M', `+:${MIB_DIRS.join(':')}`, '-m', 'SNMPv2-MIB:IPFE-OAM-MIB'],
      ...['-F', 'TRAP\t%P\t%V\t%v\n'],
      address,
    ],
    { env: { ...process.env, SNMP_PERSISTENT_DIR: join(dir, 'persist') } },
  );
  const traps: ReceivedTrap[] = [];
  let other = '';
  let pending = '';
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`snmptrapd exited (${code}): ${other}`)));
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('TRAP\t')) {
          other += line + '\n';
          if (line.startsWith('NET-SNMP version')) resolve();
          continue;
        }
        const [, security, ...fields] = line.split('\t');
        const varbinds: Record<string, string> = {};
        for (const field of fields) {
          const at = field.indexOf(' = ');
          varbinds[field.slice(0, at)] = field.slice(at + 3);
        }
        traps.push({ security: security!, varbinds });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (other += chunk.toString('utf8')));
  });
  await started;
  return {
    traps,
    output: () => other,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
