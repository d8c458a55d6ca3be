/** Polling for the lab tests (and the benchmarks, bench/lib/stats.ts): the one `until`. */

type Falsy = null | undefined | false | 0 | '';

/**
 * Polls `probe` every `everyMs` until it returns something truthy, and returns that; a probe that
 * throws has not held yet (an agent still starting refuses the connection). After `timeoutMs` it
 * throws naming `what` and the last answer or error.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | Falsy> | T | Falsy,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value as T;
      last = value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
}

/**
 * Runs `check` (which asserts) every `everyMs` for `forMs`: what must stay true for a while, such
 * as a state that no retry may change. The first failed check fails at once.
 */
export async function throughout(forMs: number, everyMs: number, check: () => Promise<void>) {
  const end = Date.now() + forMs;
  while (Date.now() < end) {
    await check();
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
