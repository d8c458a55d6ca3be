import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A child process spoken to in JSON lines: one command in, one answer out, in order. */
export class LineDriver {
  readonly #waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  #exited: string | null = null;
  #stderr = '';

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return; // not an answer (a stray log line)
      }
      this.#waiting.shift()?.resolve(value);
    });
    child.stderr!.on('data', (d: Buffer) => (this.#stderr = (this.#stderr + d).slice(-4000)));
    child.once('exit', (code, signal) => {
      this.#exited = `exited (code ${code}, signal ${signal}): ${this.#stderr.trim()}`;
      for (const w of this.#waiting.splice(0)) w.reject(new Error(this.#exited));
    });
  }

  /** The first line the child prints (its "ready"). */
  ready(timeoutMs = 30_000): Promise<unknown> {
    return this.#next(timeoutMs);
  }

  ask<T = Record<string, unknown>>(command: object, timeoutMs = 60_000): Promise<T> {
    const answer = this.#next(timeoutMs) as Promise<T>;
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
    return answer;
  }

  #next(timeoutMs: number): Promise<unknown> {
    if (this.#exited) return Promise.reject(new Error(this.#exited));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new Error(`no answer within ${timeoutMs} ms ${this.#stderr.trim()}`));
      }, timeoutMs);
      const entry = {
        resolve: (v: unknown) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.#waiting.push(entry);
    });
  }
}
