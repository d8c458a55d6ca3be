import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentBgpStatus } from '@ipfe/schema';
import type { Logger } from 'pino';
import type { ExitGuard } from './exit-guard.ts';
import { announceCommands, renderFrrConfig, sessionsOf, type BgpSettings } from './frr-config.ts';

const run = promisify(execFile);

/** Where Debian's frr package puts the daemons; IPFE_FRR_DIR overrides it. */
const FRR_DIR = process.env.IPFE_FRR_DIR ?? '/usr/lib/frr';
const DAEMONS = ['zebra', 'bfdd', 'bgpd'] as const;
const VTYSH_TIMEOUT_MS = 5000;

/** The FRR pathspace of the agent of `slot` with this state folder: its own, and the same after a restart. */
export function frrPathspace(slot: string, stateDir: string): string {
  const hash = createHash('sha256').update(stateDir).digest('hex').slice(0, 8);
  return `ipfe-${slot.toLowerCase()}-${hash}`;
}

/** Whether FRR is installed (the agent refuses active-active without it). */
export function frrInstalled(): boolean {
  return DAEMONS.every((d) => existsSync(join(FRR_DIR, d)));
}

/**
 * The agent's BGP speaker (issue 18, decision 018): the agent does not speak BGP itself, it runs
 * FRR's zebra, bfdd and bgpd of its own, in its network namespace, in an FRR pathspace named after
 * its slot (sockets in /var/run/frr/<pathspace>, config and logs in its state folder), and drives
 * them with vtysh: the configuration (AS, peers, BFD timers) is rendered into frr.conf and the
 * daemons restarted when it changes; announcements are `network`/`no network` commands. Stopping
 * (SIGTERM) stops the daemons, which ends the sessions and withdraws every route; should the agent
 * die outright, the exit guard kills them first of all its undo list.
 */
export class BgpSpeaker {
  readonly #dir: string;
  readonly #pathspace: string;
  #settings: BgpSettings | null = null;
  #signature = '';
  #children: ChildProcess[] = [];
  #announced = new Set<string>();
  #sessions: AgentBgpStatus['sessions'] = [];
  #busy: Promise<void> = Promise.resolve();
  #failed: string | null = null;
  #startedAt = 0;

  constructor(
    stateDir: string,
    pathspace: string,
    private readonly log: Logger,
    private readonly guard: ExitGuard | null,
  ) {
    this.#dir = join(stateDir, 'frr');
    this.#pathspace = pathspace;
  }

  /** Why the speaker cannot run (FRR missing, a daemon would not start), or null. */
  get failure(): string | null {
    return this.#failed;
  }

  status(): AgentBgpStatus | null {
    if (!this.#settings) return null;
    return { sessions: this.#sessions, announced: [...this.#announced].sort() };
  }

  /**
   * Runs the speaker for these settings and announces exactly `prefixes` (`null` settings: no
   * speaker). Calls are queued, one at a time; false when it did not succeed.
   */
  update(
    settings: BgpSettings | null,
    routerId: string | null,
    prefixes: readonly string[],
  ): Promise<boolean> {
    const done = this.#busy
      .then(() => this.#update(settings, routerId, prefixes))
      .then(
        () => !this.#failed,
        (err: unknown) => {
          this.log.error({ err: (err as Error).message }, 'BGP: update failed');
          return false;
        },
      );
    this.#busy = done.then(() => undefined);
    return done;
  }

  async #update(
    settings: BgpSettings | null,
    routerId: string | null,
    prefixes: readonly string[],
  ) {
    const wanted = new Set(settings ? prefixes : []);
    const signature = settings ? JSON.stringify({ settings, routerId }) : '';
    if (signature !== this.#signature) {
      await this.#stopDaemons();
      this.#settings = settings;
      this.#signature = signature;
      this.#announced = new Set();
      this.#sessions = [];
      if (!settings) return;
      if (!frrInstalled()) {
        this.#failed = `FRR is not installed (${FRR_DIR}/bgpd)`;
        return;
      }
      this.#failed = null;
      this.#startedAt = Date.now();
      await this.#startDaemons(settings, routerId, wanted);
      this.#announced = wanted;
      return;
    }
    if (!settings || this.#failed) return;
    const commands = announceCommands(settings.asn, this.#announced, wanted);
    if (commands.length === 0) return;
    await this.#vtysh(['-c', 'configure terminal', ...commands.flatMap((c) => ['-c', c])]);
    for (const prefix of wanted)
      if (!this.#announced.has(prefix)) this.log.info({ prefix }, 'BGP: announcing');
    for (const prefix of this.#announced)
      if (!wanted.has(prefix)) this.log.info({ prefix }, 'BGP: withdrawing');
    this.#announced = wanted;
  }

  /**
   * The peers whose session is not established, once the speaker has had `graceMs` to bring them
   * up (a start is not an outage).
   */
  downSessions(graceMs: number): AgentBgpStatus['sessions'] {
    if (!this.#settings || Date.now() - this.#startedAt < graceMs) return [];
    return this.#sessions.filter((s) => s.state !== 'established');
  }

  /** Reads the sessions' BGP and BFD states (each second, by the agent). */
  async poll(): Promise<void> {
    const settings = this.#settings;
    if (!settings || this.#failed || this.#children.length === 0) {
      this.#sessions = (settings?.peers ?? []).map((p) => ({
        peer: p.address,
        state: 'down',
        bfd: 'unknown',
      }));
      return;
    }
    const json = async (command: string): Promise<unknown> => {
      try {
        return JSON.parse(await this.#vtysh(['-c', command]));
      } catch {
        return null;
      }
    };
    const [neighbors, bfd] = [
      await json('show bgp neighbors json'),
      await json('show bfd peers json'),
    ];
    this.#sessions = sessionsOf(
      settings.peers.map((p) => p.address),
      neighbors,
      bfd,
    );
  }

  /** Withdraws everything and stops the daemons. */
  async stop(): Promise<void> {
    await this.#busy;
    await this.#stopDaemons();
    this.#settings = null;
    this.#signature = '';
    this.#announced = new Set();
    rmSync(this.#runDir, { recursive: true, force: true });
  }

  async #vtysh(args: string[]): Promise<string> {
    const { stdout } = await run('vtysh', ['-N', this.#pathspace, ...args], {
      timeout: VTYSH_TIMEOUT_MS,
      maxBuffer: 4 * 1024 * 1024,
    });
    return stdout;
  }

  async #startDaemons(settings: BgpSettings, routerId: string | null, announced: Set<string>) {
    // FRR's daemons run as its user: their folder (sockets, pid files, configuration, logs) is
    // its. The agent's state folder keeps a copy of the configuration to read.
    const runDir = this.#runDir;
    mkdirSync(runDir, { recursive: true });
    this.#killLeftovers(runDir);
    const owner = frrOwner();
    if (owner) chownSync(runDir, owner.uid, owner.gid);
    const configs = renderFrrConfig(settings, {
      hostname: `ipfe-${this.#pathspace}`,
      routerId,
      announced: [...announced],
    });
    mkdirSync(this.#dir, { recursive: true });
    for (const daemon of DAEMONS) {
      writeFileSync(join(runDir, `${daemon}.conf`), configs[daemon]);
      writeFileSync(join(this.#dir, `${daemon}.conf`), configs[daemon]);
    }
    for (const daemon of DAEMONS) {
      const child = spawn(
        join(FRR_DIR, daemon),
        [
          '-N',
          this.#pathspace,
          '-f',
          join(runDir, `${daemon}.conf`),
          '-i',
          join(runDir, `${daemon}.pid`),
          '--log',
          `file:${join(runDir, `${daemon}.log`)}`,
        ],
        { stdio: 'ignore', detached: true },
      );
      child.on('error', (err) => {
        this.#failed = `${daemon}: ${err.message}`;
        this.log.error({ err: err.message, daemon }, 'BGP: FRR daemon failed');
      });
      child.on('exit', (code, signal) => {
        if (this.#children.includes(child))
          this.log.warn({ daemon, code, signal }, 'BGP: FRR daemon exited');
      });
      child.unref();
      this.#children.push(child);
      this.#guardChildren();
      // bgpd talks to zebra, bfdd through it: zebra's socket first.
      await this.#waitFor(() => existsSync(join(runDir, `${daemon}.vty`)), 5000);
    }
    this.log.info(
      { peers: settings.peers.map((p) => p.address), pathspace: this.#pathspace },
      'BGP: FRR started',
    );
  }

  #guardChildren() {
    const pids = this.#children.map((c) => c.pid).filter((p): p is number => p !== undefined);
    // First of the undo list ("0 …"): a crashed agent's routes go before its rules do.
    this.guard?.set('0 bgp', pids.length ? ['kill', '-TERM', ...pids.map(String)] : null);
  }

  async #stopDaemons() {
    const children = this.#children;
    this.#children = [];
    // bgpd first: it sends its peers a Cease, and they withdraw at once (not after BFD's timeout).
    for (const child of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    this.#guardChildren();
  }

  /** Daemons a previous agent of this state folder left (killed with its guard): stopped. */
  #killLeftovers(runDir: string) {
    for (const daemon of DAEMONS) {
      const file = join(runDir, `${daemon}.pid`);
      let pid = NaN;
      try {
        pid = Number(readFileSync(file, 'utf8').trim());
      } catch {
        continue;
      }
      if (Number.isInteger(pid) && pid > 1 && isFrrDaemon(pid, daemon)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      rmSync(file, { force: true });
    }
  }

  get #runDir(): string {
    return `/var/run/frr/${this.#pathspace}`;
  }

  async #waitFor(ready: () => boolean, ms: number) {
    const deadline = Date.now() + ms;
    while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  }
}

/** FRR's user (Debian's package runs its daemons as `frr`), or null when there is none. */
function frrOwner(): { uid: number; gid: number } | null {
  const id = (flag: string) => spawnSync('id', [flag, 'frr'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Whether `pid` is FRR's `daemon` (a pid file may outlive its process and the pid be reused). */
function isFrrDaemon(pid: number, daemon: string): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]?.endsWith(`/${daemon}`) ?? false
    );
  } catch {
    return false;
  }
}
