import { spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { describe, it } from 'vitest';

/**
 * What keeps a lab suite (network namespaces, nft, FRR…) from running on this machine, or null
 * when nothing does: root and iproute2's `ip netns`, then each tool on the PATH.
 */
export function labMissing(...tools: string[]): string | null {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  if (spawnSync('ip', ['netns', 'list']).status !== 0) return 'needs ip netns (iproute2)';
  const absent = tools.filter((t) => spawnSync('which', [t], { stdio: 'ignore' }).status !== 0);
  return absent.length > 0 ? `needs ${absent.join(', ')} on the PATH` : null;
}

/** Whether a skipped lab suite is a failure: CI runs as root with every tool installed. */
export const labRequired = process.env.IPFE_REQUIRE_LAB === '1';

/**
 * A lab suite: it runs where nothing is `missing`; on a developer's laptop without root or the
 * tools it is skipped, saying why; under IPFE_REQUIRE_LAB=1 (`.ci/run`) a suite that cannot run
 * fails instead, so that CI never passes with a lab suite left out.
 */
export function describeLab(name: string, missing: string | null, body: () => void): void {
  if (missing === null) {
    describe(name, body);
    return;
  }
  if (labRequired) {
    describe(name, () => {
      it('has what the lab needs (IPFE_REQUIRE_LAB=1)', () => {
        throw new Error(`this lab suite cannot run here: ${missing}`);
      });
    });
    return;
  }
  console.warn(`${name}: skipped, ${missing}`);
  describe.skip(name, body);
}

/**
 * Drains a lab process's stdout and stderr (piped), so that it never blocks on a full pipe;
 * DEBUG_LOG_DIR=dir keeps them in dir/<name>-<pid>.log (an agent's log, say, after a failing test).
 */
export function keepOutput(child: ChildProcess, name: string) {
  child.stdout?.resume();
  child.stderr?.resume();
  if (!process.env.DEBUG_LOG_DIR) return;
  const out = createWriteStream(`${process.env.DEBUG_LOG_DIR}/${name}-${child.pid}.log`);
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
}
