import { execFile, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { ExitGuard } from './exit-guard.ts';

const run = promisify(execFile);

/**
 * Holds the TSAs an agent serves on its XSI interface (opt-in, `--manage-addresses DEV`, needs
 * CAP_NET_ADMIN): adds each as a host address and announces it (a gratuitous ARP; for IPv6 an
 * unsolicited neighbour advertisement), so that clients and routers move to this node at once on a
 * takeover; removes it when the mate takes it back. Addresses it did not add are never touched.
 */
export class AddressHolder {
  #held = new Set<string>();
  #failed = new Map<string, string>();
  /** The gratuitous ARPs still being sent, by address: stopped when the address goes. */
  #announcing = new Map<string, ChildProcess>();

  constructor(
    private readonly device: string,
    private readonly log: Logger,
    private readonly guard: ExitGuard | null = null,
  ) {}

  failures(): { address: string; error: string }[] {
    return [...this.#failed].map(([address, error]) => ({ address, error }));
  }

  async hold(addresses: string[]): Promise<void> {
    const wanted = new Set(addresses);
    for (const address of [...this.#held]) if (!wanted.has(address)) await this.#release(address);
    for (const address of wanted) if (!this.#held.has(address)) await this.#add(address);
  }

  /** Announces held addresses again (after a split brain: the mate may have announced them too). */
  announce(addresses: string[]): void {
    for (const address of addresses) {
      if (!this.#held.has(address)) continue;
      if (net.isIPv6(address)) {
        // The kernel advertises an IPv6 address when it is added: added again, it is announced.
        const [file, ...args] = this.#command('del', address);
        run(file!, args)
          // Not if it was let go meanwhile: that would hold an address the mate now holds.
          .then(() => (this.#held.has(address) ? this.#add(address) : undefined))
          .catch(() => undefined);
      } else this.#arping(address);
    }
  }

  async releaseAll(): Promise<void> {
    for (const address of [...this.#held]) await this.#release(address);
  }

  async #add(address: string) {
    const v6 = net.isIPv6(address);
    try {
      // IPv6: with ndisc_notify the kernel sends an unsolicited neighbour advertisement (override
      // set) when duplicate address detection ends, and with accept_dad=0 it ends at once. (An
      // address added `nodad` is never announced.) No DAD on the XSI interface is also what a
      // takeover needs: a TSA the failed mate may still answer for must not be refused.
      if (v6)
        await run('sysctl', [
          '-qw',
          `net.ipv6.conf.${this.device}.ndisc_notify=1`,
          `net.ipv6.conf.${this.device}.accept_dad=0`,
        ]);
      const [file, ...args] = this.#command('replace', address);
      await run(file!, args);
      this.#held.add(address);
      this.#failed.delete(address);
      this.guard?.set(`1 address ${address}`, this.#command('del', address));
      this.log.info({ tsa: address, device: this.device }, 'TSA address added');
      if (!v6) this.#arping(address);
    } catch (err) {
      const message = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
      this.#failed.set(address, message);
      this.log.error({ tsa: address, device: this.device, err: message }, 'cannot add TSA address');
    }
  }

  async #release(address: string) {
    // Its second ARP, a second after the first, would move the neighbours back to this node.
    this.#stopAnnouncing(address);
    this.#held.delete(address);
    const [file, ...args] = this.#command('del', address);
    await run(file!, args).catch(() => undefined);
    this.guard?.set(`1 address ${address}`, null);
    this.log.info({ tsa: address, device: this.device }, 'TSA address removed');
  }

  /** Unsolicited ARP: neighbours that knew the address at the mate's MAC update at once. */
  #arping(address: string) {
    this.#stopAnnouncing(address);
    const child = execFile(
      'arping',
      ['-U', '-c', '2', '-w', '2', '-I', this.device, address],
      (err) => {
        if (this.#announcing.get(address) === child) this.#announcing.delete(address);
        if (err && !child.killed)
          this.log.warn({ tsa: address, err: err.message }, 'gratuitous ARP failed');
      },
    );
    this.#announcing.set(address, child);
  }

  #stopAnnouncing(address: string) {
    this.#announcing.get(address)?.kill();
    this.#announcing.delete(address);
  }

  #command(verb: 'replace' | 'del', address: string): string[] {
    const v6 = net.isIPv6(address);
    return [
      'ip',
      ...(v6 ? ['-6'] : []),
      'addr',
      verb,
      `${address}/${v6 ? 128 : 32}`,
      'dev',
      this.device,
    ];
  }
}
