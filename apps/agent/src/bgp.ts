import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentBgpStatus, Bgp } from '@ipfe/schema';
import type { Logger } from 'pino';
import type { ExitGuard } from './exit-guard.ts';
import { announceCommands, renderFrrConfig, sessionsOf } from './frr-config.ts';

const run = promisify(execFile);

/** Where Debian's frr package puts the daemons; IPFE_FRR_DIR overrides it. */
const FRR_DIR = process.env.IPFE_FRR_DIR ?? '/usr/lib/frr';
const DAEMONS = ['zebra', 'bfdd', 'bgpd'] as const;
const VTYSH_TIMEOUT_MS = 5000;
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** Daemons that ran this long before exiting restart at the first delay again. */
const RESTART_RESET_MS = 60_000;
/** Restarts in a row from which the speaker's failure says FRR keeps exiting. */
const KEEPS_EXITING = 3;

/**
 * The agent supervises its FRR daemons: after one exited, having run `ranMs`, the restarts in a
 * row (this one included) and the wait before it — doubling from 1 s to 30 s, so that a daemon
 * that dies at start does not spin, and from 1 s again once they had run 60 s.
 */
export function nextRestart(inARow: number, ranMs: number): { inARow: number; delayMs: number } {
  const before = ranMs >= RESTART_RESET_MS ? 0 : inARow;
  return {
    inARow: before + 1,
    delayMs: Math.min(RESTART_FIRST_MS * 2 ** before, RESTART_MAX_MS),
  };
}

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
 * die outright, the exit guard kills them first of all its undo list. Should a daemon die, the
 * speaker restarts all three (`nextRestart`) with the same settings and announcements.
 */
export class BgpSpeaker {
  readonly #dir: string;
  readonly #pathspace: string;
  #settings: Bgp | null = null;
  #routerId: string | null = null;
  #signature = '';
  #children: ChildProcess[] = [];
  #announced = new Set<string>();
  #sessions: AgentBgpStatus['sessions'] = [];
  #busy: Promise<void> = Promise.resolve();
  #failed: string | null = null;
  #startedAt = 0;
  /** When the daemons were last started (a restart too), for the backoff. */
  #daemonsStartedAt = 0;
  /** A daemon exited: the others wait to be restarted with it. */
  #down = false;
  /** Which daemon exited last, and how. */
  #lastExit = '';
  #restartTimer: NodeJS.Timeout | null = null;
  #restartsInARow = 0;

  constructor(
    stateDir: string,
    pathspace: string,
    private readonly log: Logger,
    private readonly guard: ExitGuard | null,
  ) {
    this.#dir = join(stateDir, 'frr');
    this.#pathspace = pathspace;
  }

  /**
   * Why the speaker cannot run (FRR missing, a daemon would not start, its daemons keep exiting
   * until they have run 60 s again), or null.
   */
  get failure(): string | null {
    if (this.#failed) return this.#failed;
    const settled = !this.#down && Date.now() - this.#daemonsStartedAt >= RESTART_RESET_MS;
    if (this.#restartsInARow < KEEPS_EXITING || settled) return null;
    return `FRR keeps exiting (${this.#restartsInARow} restarts in a row, last: ${this.#lastExit})`;
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
    settings: Bgp | null,
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

  async #update(settings: Bgp | null, routerId: string | null, prefixes: readonly string[]) {
    const wanted = new Set(settings ? prefixes : []);
    const signature = settings ? JSON.stringify({ settings, routerId }) : '';
    if (signature !== this.#signature) {
      await this.#stopDaemons();
      this.#settings = settings;
      this.#routerId = routerId;
      this.#signature = signature;
      this.#restartsInARow = 0;
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
    if (this.#down) {
      // Down until the restart, which announces what is wanted then.
      this.#announced = wanted;
      return;
    }
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
    if (!settings || this.#failed || this.#down || this.#children.length === 0) {
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

  /** Withdraws everything and stops the daemons, for good (nothing restarts them). */
  stop(): Promise<void> {
    const done = this.#busy.then(async () => {
      await this.#stopDaemons();
      this.#settings = null;
      this.#signature = '';
      this.#announced = new Set();
      rmSync(this.#runDir, { recursive: true, force: true });
    });
    this.#busy = done.catch(() => undefined);
    return done;
  }

  /** A daemon exited by itself: the others are stopped and all three started again, later. */
  #daemonExited(child: ChildProcess, daemon: string, how: string) {
    this.#children = this.#children.filter((c) => c !== child);
    this.#guardChildren();
    this.#lastExit = `${daemon} ${how}`;
    if (this.#down) return;
    this.#down = true;
    const next = nextRestart(this.#restartsInARow, Date.now() - this.#daemonsStartedAt);
    this.#restartsInARow = next.inARow;
    this.log.warn(
      { daemon, exit: how, restartInMs: next.delayMs, inARow: next.inARow },
      'BGP: FRR daemon exited, restarting FRR',
    );
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.#busy = this.#busy
        .then(() => this.#restart())
        .catch((err: unknown) => {
          this.log.error({ err: (err as Error).message }, 'BGP: FRR restart failed');
        });
    }, next.delayMs);
    this.#restartTimer.unref();
  }

  async #restart() {
    // Stopped or reconfigured meanwhile: nothing to restart.
    const settings = this.#settings;
    if (!this.#down || !settings) return;
    await this.#stopDaemons();
    await this.#startDaemons(settings, this.#routerId, this.#announced);
  }

  async #vtysh(args: string[]): Promise<string> {
    const { stdout } = await run('vtysh', ['-N', this.#pathspace, ...args], {
      timeout: VTYSH_TIMEOUT_MS,
      maxBuffer: 4 * 1024 * 1024,
    });
    return stdout;
  }

  async #startDaemons(settings: Bgp, routerId: string | null, announced: Set<string>) {
    // FRR's daemons run as its user: their folder (sockets, pid files, configuration, logs) is
    // its. The agent's state folder keeps a copy of the configuration to read.
    const runDir = this.#runDir;
    mkdirSync(runDir, { recursive: true });
    this.#killLeftovers(runDir);
    const owner = frrOwner();
    if (owner) chownSync(runDir, owner.uid, owner.gid);
    this.#daemonsStartedAt = Date.now();
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
          this.#daemonExited(child, daemon, signal ? `killed by ${signal}` : `exited with ${code}`);
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
    this.#down = false;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
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

  /**
   * Daemons a previous agent of this state folder left (killed with its guard): stopped. A dead
   * daemon's socket goes too: the start waits for each daemon's own.
   */
  #killLeftovers(runDir: string) {
    for (const daemon of DAEMONS) {
      rmSync(join(runDir, `${daemon}.vty`), { force: true });
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
