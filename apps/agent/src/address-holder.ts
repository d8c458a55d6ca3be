import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const run = promisify(execFile);

/**
 * Holds the TSAs an agent serves on its XSI interface (opt-in, `--manage-addresses DEV`, needs
 * CAP_NET_ADMIN): adds each as a host address and announces it with a gratuitous ARP, so that
 * clients and routers move to this node at once on a takeover; removes it when the mate takes it
 * back. Addresses it did not add are never touched.
 */
export class AddressHolder {
  #held = new Set<string>();
  #failed = new Map<string, string>();

  constructor(
    private readonly device: string,
    private readonly log: Logger,
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
      if (!this.#held.has(address) || net.isIPv6(address)) continue;
      run('arping', ['-U', '-c', '2', '-w', '2', '-I', this.device, address]).catch(
        () => undefined,
      );
    }
  }

  async releaseAll(): Promise<void> {
    for (const address of [...this.#held]) await this.#release(address);
  }

  async #add(address: string) {
    const v6 = net.isIPv6(address);
    try {
      await run('ip', [
        ...(v6 ? ['-6'] : []),
        'addr',
        'replace',
        `${address}/${v6 ? 128 : 32}`,
        'dev',
        this.device,
        ...(v6 ? ['nodad'] : []),
      ]);
      this.#held.add(address);
      this.#failed.delete(address);
      this.log.info({ tsa: address, device: this.device }, 'TSA address added');
      if (!v6) {
        // Unsolicited ARP: neighbours that knew the address at the mate's MAC update at once.
        run('arping', ['-U', '-c', '2', '-w', '2', '-I', this.device, address]).catch(
          (err: Error) =>
            this.log.warn({ tsa: address, err: err.message }, 'gratuitous ARP failed'),
        );
      }
    } catch (err) {
      const message = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
      this.#failed.set(address, message);
      this.log.error({ tsa: address, device: this.device, err: message }, 'cannot add TSA address');
    }
  }

  async #release(address: string) {
    const v6 = net.isIPv6(address);
    await run('ip', [
      ...(v6 ? ['-6'] : []),
      'addr',
      'del',
      `${address}/${v6 ? 128 : 32}`,
      'dev',
      this.device,
    ]).catch(() => undefined);
    this.#held.delete(address);
    this.log.info({ tsa: address, device: this.device }, 'TSA address removed');
  }
}
