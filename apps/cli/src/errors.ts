/** A failure the CLI reports as one line on standard error, then exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Exit codes (docs/cli.md lists them): 0 done (plan: no change), 1 an error, 2 `plan` found
 * changes, 3 stale (another revision was committed since the plan: nothing committed, plan again;
 * a pipeline may retry), 64 bad usage.
 */
export const EXIT = { ok: 0, error: 1, changes: 2, stale: 3, usage: 64 } as const;
