import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

const GUARD = fileURLToPath(new URL('../bin/ipfe-agent-guard.js', import.meta.url));
/** The only programs an undo list may name: a state folder is no place to smuggle commands in. */
// (Not `kill`: the live guard kills the agent's FRR daemons, but a pid left in a file may have been
// reused since; the next agent's BGP speaker stops leftover daemons by their pid files.)
const UNDO_PROGRAMS = new Set(['ip', 'nft', 'conntrackd']);

/**
 * What the agent holds in the kernel outlives the process: a TSA address on the XSI interface, the
 * nftables table, conntrackd. A clean stop undoes them; an agent killed outright would leave them,
 * and a TSA held by both mates at once is a split brain. The exit guard is a small process in a
 * session of its own that learns how to undo each thing as the agent takes it, and does so the
 * moment the agent's end of its stdin closes without a dismissal. The same list is kept in the
 * state folder: when the guard died too (a container stopped, a cgroup killed), the next agent to
 * start there undoes what is left before it takes anything.
 */
export class ExitGuard {
  readonly #child: ChildProcess;
  readonly #file: string;
  /** Undo commands by key; run in key order, so "1 …" (addresses) goes before "2 …" and "3 …". */
  readonly #undo = new Map<string, string[]>();
  #dismissed = false;

  constructor(
    stateDir: string,
    private readonly log: Logger,
  ) {
    this.#file = join(stateDir, 'undo.json');
    this.#undoLeftovers();
    this.#child = spawn(process.execPath, [GUARD, this.#file], {
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

  /** Records how to undo `key` (or forgets it, with null) should the agent die now. */
  set(key: string, command: string[] | null): void {
    if (command) this.#undo.set(key, command);
    else this.#undo.delete(key);
    const ordered = JSON.stringify([...this.#undo.keys()].sort().map((k) => this.#undo.get(k)!));
    writeFileSync(this.#file, ordered);
    this.#child.stdin!.write(`${ordered}\n`);
  }

  /** The agent undid everything itself: the guard leaves without doing anything. */
  dismiss(): void {
    this.#dismissed = true;
    rmSync(this.#file, { force: true });
    this.#child.stdin!.end('dismiss\n');
  }

  #undoLeftovers() {
    // The guard of an agent killed a moment ago may still be running the list: let it finish, so
    // that it cannot undo what this agent is about to take.
    const deadline = Date.now() + 5000;
    while (this.#previousGuardRuns() && Date.now() < deadline) sleepSync(50);
    let commands: unknown;
    try {
      commands = JSON.parse(readFileSync(this.#file, 'utf8'));
    } catch {
      return; // nothing left behind (or nothing readable: nothing to run)
    }
    if (!Array.isArray(commands)) return;
    for (const command of commands) {
      if (!Array.isArray(command) || !command.every((part) => typeof part === 'string')) continue;
      if (!UNDO_PROGRAMS.has(String(command[0]))) continue;
      const [file, ...args] = command as string[];
      const result = spawnSync(file!, args, { stdio: 'ignore', timeout: 5000 });
      this.log.warn(
        { command: command.join(' '), status: result.status },
        'undoing what a previous agent left behind',
      );
    }
    rmSync(this.#file, { force: true });
  }

  #previousGuardRuns(): boolean {
    const found = spawnSync('pgrep', ['-f', `ipfe-agent-guard.js ${this.#file}`], {
      encoding: 'utf8',
    });
    return found.status === 0 && found.stdout.trim() !== '';
  }
}

function sleepSync(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
