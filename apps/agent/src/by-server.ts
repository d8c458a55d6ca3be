/**
 * Values per planned server: by TSA, then by the server's identity in the plan
 * (PlannedServer.server, its primary address, also behind a secondary TSA). Data paths count
 * with it and the agent reads their counts with it: no "TSA|server" strings to build and split.
 */
export class ByServer<T> {
  readonly #byTsa = new Map<string, Map<string, T>>();

  get(tsa: string, server: string): T | undefined {
    return this.#byTsa.get(tsa)?.get(server);
  }

  set(tsa: string, server: string, value: T): this {
    let servers = this.#byTsa.get(tsa);
    if (!servers) this.#byTsa.set(tsa, (servers = new Map()));
    servers.set(server, value);
    return this;
  }

  *entries(): IterableIterator<[tsa: string, server: string, value: T]> {
    for (const [tsa, servers] of this.#byTsa)
      for (const [server, value] of servers) yield [tsa, server, value];
  }

  /** The same keys, each value made anew. */
  map<U>(f: (value: T, tsa: string, server: string) => U): ByServer<U> {
    const out = new ByServer<U>();
    for (const [tsa, server, value] of this.entries()) out.set(tsa, server, f(value, tsa, server));
    return out;
  }
}
