import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { ExitGuard } from './exit-guard.ts';

const run = promisify(execFile);
const SYNC_PORT = 3780;
/** A conntrackd that stopped is started again after this long (alarm 5003 meanwhile). */
export const RESTART_AFTER_MS = 2000;

/**
 * Connection state shared with the mate (kernel data path, `--sync-conntrack DEV`): a conntrackd
 * in FTFW mode sends this node's conntrack events to the mate and keeps the mate's in an external
 * cache. On a takeover the external cache is committed to the kernel, so the connections the mate
 * was forwarding go on here (their SNAT is to the TSA, which moves with them).
 */
export class ConntrackSync {
  #child: ChildProcess | null = null;
  #key: string | null = null;
  #pending: Promise<void> = Promise.resolve();
  /** Why connection state is not shared now (conntrackd stopped or cannot start), or null. */
  #failure: string | null = null;
  #restart: NodeJS.Timeout | null = null;

  constructor(
    private readonly device: string,
    private readonly stateDir: string,
    private readonly log: Logger,
    private readonly guard: ExitGuard | null = null,
  ) {}

  get #lockFile(): string {
    return join(this.stateDir, 'conntrackd.lock');
  }

  get config(): string {
    return join(this.stateDir, 'conntrackd.conf');
  }

  /** Why connection state is not shared with the mate now, or null (alarm 5003). */
  failure(): string | null {
    return this.#failure;
  }

  /** (Re)starts conntrackd for these addresses; a no-op when nothing changed. In order, in the background. */
  configure(own: string, mate: string | null): Promise<void> {
    this.#pending = this.#pending
      .then(() => this.#configure(own, mate))
      .catch((err: Error) => {
        this.#failure = `conntrackd cannot start (${err.message})`;
        this.log.error({ err: err.message }, 'cannot start conntrackd');
      });
    return this.#pending;
  }

  async #configure(own: string, mate: string | null): Promise<void> {
    const key = `${own}|${mate}`;
    if (key === this.#key) return;
    await this.stop();
    this.#key = key;
    if (!mate) return;
    const v = net.isIPv6(own) ? 6 : 4; // the family of the mates' own addresses, for the channel
    writeFileSync(
      this.config,
      `Sync {
  Mode FTFW {
    DisableExternalCache Off
  }
  UDP {
    IPv${v}_address ${own}
    IPv${v}_Destination_Address ${mate}
    Port ${SYNC_PORT}
    Interface ${this.device}
    SndSocketBuffer 1249280
    RcvSocketBuffer 1249280
    Checksum on
  }
}
General {
  HashSize 32768
  HashLimit 131072
  LogFile ${join(this.stateDir, 'conntrackd.log')}
  Syslog off
  LockFile ${this.#lockFile}
  UNIX {
    Path ${join(this.stateDir, 'conntrackd.ctl')}
  }
  NetlinkBufferSize 2097152
  NetlinkBufferSizeMaxGrowth 8388608
  Filter From Userspace {
    Protocol Accept {
      TCP
    }
    Address Ignore {
      IPv4_address 127.0.0.1
      IPv6_address ::1
      IPv${v}_address ${own}
    }
  }
}
`,
    );
    // Entries that lived on the mate meanwhile have moved on in sequence space: without liberal
    // window tracking the kernel would call their packets invalid after a hand-over.
    void run('sysctl', ['-qw', 'net.netfilter.nf_conntrack_tcp_be_liberal=1']).catch((err: Error) =>
      this.log.warn({ err: err.message }, 'cannot set nf_conntrack_tcp_be_liberal'),
    );
    // A conntrackd killed with its agent (a process-group SIGKILL) leaves its lock file behind, and
    // a new one would refuse to start: this node would stop telling its mate of its connections.
    await run('conntrackd', ['-C', this.config, '-k']).catch(() => undefined);
    rmSync(this.#lockFile, { force: true });
    const child = spawn('conntrackd', ['-C', this.config], { stdio: 'ignore' });
    this.guard?.set('3 conntrackd', ['conntrackd', '-C', this.config, '-k']);
    child.on('error', (err) => {
      if (this.#child === child) this.#stopped(own, mate, err.message);
    });
    child.on('exit', (code, signal) => {
      if (this.#child === child) this.#stopped(own, mate, `exit ${signal ?? code}`);
    });
    this.#child = child;
    this.#failure = null;
    this.log.info({ own, mate }, 'conntrackd started');
  }

  /** conntrackd went away unasked: said (5003), and started again a little later. */
  #stopped(own: string, mate: string, why: string) {
    this.#child = null;
    this.#key = null;
    this.#failure = `conntrackd stopped (${why})`;
    this.log.warn({ why }, 'conntrackd stopped');
    if (this.#restart) return;
    this.#restart = setTimeout(() => {
      this.#restart = null;
      if (this.#child === null && this.#key === null) void this.configure(own, mate);
    }, RESTART_AFTER_MS);
    this.#restart.unref();
  }

  /**
   * Takes over the mate's connections for these TSAs: asks a live mate for a full resync and
   * commits the external cache. A node that gains the TSAs (`kept` unset) drops its own entries of
   * them first: they date from before the mate carried those connections. A node that kept
   * serving them through a split (`kept`) keeps its own: they are the connections it is
   * forwarding, and the mate never carried most of them, so a resync would not bring them back.
   * (Dropping them there lost every connection this node had opened since it last heard its mate,
   * here and, by the deletions conntrackd passed on, in the mate's external cache too.)
   */
  async takeOver(tsas: string[], options: { mateAlive: boolean; kept?: boolean }): Promise<void> {
    await this.#pending;
    if (!this.#child) return;
    const ctl = (flag: string) =>
      run('conntrackd', ['-C', this.config, flag]).catch((err: Error) =>
        this.log.warn({ flag, err: err.message }, 'conntrackd command failed'),
      );
    if (options.mateAlive) {
      // A hand-back: the mate is there to send what it carried meanwhile. After a failure there
      // is nobody to ask, and every millisecond counts.
      await ctl('-n');
      await new Promise((r) => setTimeout(r, 300));
    }
    if (!options.kept) {
      for (const tsa of tsas) {
        await run('conntrack', ['-D', '-p', 'tcp', '--orig-dst', tsa]).catch(() => undefined);
      }
    }
    await ctl('-c');
    this.log.info(
      { tsas, kept: Boolean(options.kept) },
      'committed the mate’s connections to the kernel',
    );
    // Then the caches start again from this kernel's table and the mate hears what this node now
    // carries. Forwarding needs none of it: it does not hold back the address (commands that come
    // later wait for it).
    this.#pending = this.#pending.then(async () => {
      for (const flag of ['-f', '-R', '-B']) await ctl(flag);
    });
  }

  /** Stops conntrackd and waits for it (at most 2 s, then SIGKILL), so that a new one can start. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    this.#key = null;
    this.#failure = null;
    if (this.#restart) clearTimeout(this.#restart);
    this.#restart = null;
    this.guard?.set('3 conntrackd', null);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }
}
