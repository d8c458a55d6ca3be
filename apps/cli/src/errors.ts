/** A failure the CLI reports as one line on standard error, then exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Exit codes: 0 done (plan: no change), 1 an error, 2 `plan` found changes, 64 bad usage. */
export const EXIT = { ok: 0, error: 1, changes: 2, usage: 64 } as const;
