import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

const GUARD = fileURLToPath(new URL('../bin/ipfe-agent-guard.js', import.meta.url));

/**
 * What the agent holds in the kernel outlives the process: a TSA address on the XSI interface, the
 * nftables table, conntrackd. A clean stop undoes them; an agent killed outright would leave them,
 * and a TSA held by both mates at once is a split brain. The exit guard is a small process in a
 * session of its own that learns how to undo each thing as the agent takes it, and does so the
 * moment the agent's end of its stdin closes without a dismissal.
 */
export class ExitGuard {
  readonly #child: ChildProcess;
  /** Undo commands by key; run in key order, so "1 …" (addresses) goes before "2 …" and "3 …". */
  readonly #undo = new Map<string, string[]>();

  constructor(private readonly log: Logger) {
    this.#child = spawn(process.execPath, [GUARD], {
      detached: true,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    this.#child.on('error', (err) => this.log.error({ err: err.message }, 'exit guard failed'));
    this.#child.on('exit', (code) => {
      if (!this.#dismissed) this.log.error({ code }, 'exit guard stopped: a crash leaves state');
    });
    this.#child.stdin!.on('error', () => undefined);
    this.#child.unref();
  }

  #dismissed = false;

  /** Records how to undo `key` (or forgets it, with null) should the agent die now. */
  set(key: string, command: string[] | null): void {
    if (command) this.#undo.set(key, command);
    else this.#undo.delete(key);
    const ordered = [...this.#undo.keys()].sort().map((k) => this.#undo.get(k)!);
    this.#child.stdin!.write(`${JSON.stringify(ordered)}\n`);
  }

  /** The agent undid everything itself: the guard leaves without doing anything. */
  dismiss(): void {
    this.#dismissed = true;
    this.#child.stdin!.end('dismiss\n');
  }
}
