import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import {
  initialLinkHealth,
  next,
  type LinkAction,
  type LinkEvent,
  type LinkHealth,
} from './link-health.ts';

const run = promisify(execFile);

/** What the agent watches of its TSA-facing link (flags --next-hop, --next-hop-interval-ms, --next-hop-misses). */
export interface LinkWatchSettings {
  /** The next hops to probe; `routes`: the gateways of the device's default routes; none: `[]`. */
  nextHops: readonly string[] | 'routes';
  /** One probe of each next hop this often; a probe not answered within it is missed. */
  intervalMs: number;
  /** Probes a next hop may miss in a row before the link is down. */
  misses: number;
}

export const DEFAULT_LINK_WATCH: LinkWatchSettings = {
  nextHops: 'routes',
  intervalMs: 200,
  misses: 3,
};

/** The carrier is read this often: a cut link is seen within it. */
const OPERSTATE_EVERY_MS = 50;
/** The default routes are read again this often (they may be added after the agent starts). */
const ROUTES_EVERY_MS = 10_000;

/**
 * Watches the TSA-facing link (`--manage-addresses DEV`) for link-health.ts: reads DEV's
 * operstate every 50 ms and probes each next hop every `intervalMs` (`arping` for IPv4, `ndisc6`
 * for IPv6, each probe a process of its own killed at the interval: an answer within it is an
 * answer), and hands each change of verdict to `onChange`.
 */
export class LinkWatch {
  #state: LinkHealth;
  #timers: NodeJS.Timeout[] = [];
  #probes = new Set<ChildProcess>();
  #readingOperstate = false;
  #closed = false;
  /** Next hops of a family whose probe tool is missing, said once. */
  #unprobed = new Set<string>();

  constructor(
    private readonly device: string,
    private readonly settings: LinkWatchSettings,
    private readonly log: Logger,
    private readonly onChange: (action: LinkAction, state: LinkHealth) => void,
  ) {
    this.#state = initialLinkHealth(device, settings.misses);
  }

  get state(): LinkHealth {
    return this.#state;
  }

  start(): void {
    const every = (ms: number, task: () => void) => {
      task();
      this.#timers.push(setInterval(task, ms));
    };
    every(OPERSTATE_EVERY_MS, () => void this.#readOperstate());
    if (this.settings.nextHops === 'routes') every(ROUTES_EVERY_MS, () => void this.#readRoutes());
    else this.#event({ type: 'nextHops', addresses: this.settings.nextHops });
    every(this.settings.intervalMs, () => this.#probeAll());
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    for (const child of this.#probes) child.kill('SIGKILL');
    this.#probes.clear();
  }

  #event(event: LinkEvent) {
    if (this.#closed) return;
    const { state, actions } = next(this.#state, event);
    this.#state = state;
    for (const action of actions) this.onChange(action, state);
  }

  async #readOperstate() {
    if (this.#readingOperstate) return;
    this.#readingOperstate = true;
    const state = await readFile(`/sys/class/net/${this.device}/operstate`, 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
    this.#readingOperstate = false;
    if (state !== this.#state.operstate) this.#event({ type: 'operstate', state });
  }

  async #readRoutes() {
    const gateways = async (family: '-4' | '-6') => {
      const { stdout } = await run('ip', [
        family,
        '-j',
        'route',
        'show',
        'default',
        'dev',
        this.device,
      ]);
      return (JSON.parse(stdout || '[]') as { gateway?: string }[]).flatMap((r) =>
        r.gateway ? [r.gateway] : [],
      );
    };
    try {
      const addresses = [...(await gateways('-4')), ...(await gateways('-6'))];
      const known = this.#state.nextHops.map((h) => h.address);
      if (JSON.stringify(addresses) !== JSON.stringify(known)) {
        this.log.info(
          { device: this.device, nextHops: addresses },
          'next hops of the TSA-facing link',
        );
        this.#event({ type: 'nextHops', addresses });
      }
    } catch (err) {
      this.log.warn(
        { device: this.device, err: (err as Error).message },
        'cannot read the default routes',
      );
    }
  }

  #probeAll() {
    for (const { address } of this.#state.nextHops)
      if (!this.#unprobed.has(address)) this.#probe(address);
  }

  /** One probe: answered if its tool exits 0 within the interval; otherwise killed, and missed. */
  #probe(address: string) {
    const v6 = net.isIPv6(address);
    const [file, ...args] = v6
      ? [
          'ndisc6',
          '-q',
          '-1',
          '-r',
          '1',
          '-w',
          String(this.settings.intervalMs),
          address,
          this.device,
        ]
      : ['arping', '-q', '-c', '1', '-w', '1', '-I', this.device, address];
    const child = spawn(file!, args, { stdio: 'ignore' });
    this.#probes.add(child);
    let done = false;
    const end = (answered: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.#probes.delete(child);
      this.#event({ type: 'probe', address, answered });
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      end(false);
    }, this.settings.intervalMs);
    child.on('exit', (code) => end(code === 0));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done = true;
      this.#probes.delete(child);
      // A missing tool is no silent next hop: said once, and that next hop is not watched.
      if (!this.#unprobed.has(address)) {
        this.#unprobed.add(address);
        this.log.error(
          { nextHop: address, tool: file, err: err.code ?? err.message },
          `cannot probe next hop ${address} (${file} ${err.code === 'ENOENT' ? 'is not installed' : 'failed'})`,
        );
      }
    });
  }
}
