import { isAbsolute, resolve } from 'node:path';
import type { OamClient } from './client.ts';

export type OptionSpec = { type: 'string' | 'boolean'; description: string; value?: string };

export interface Context {
  client: () => OamClient;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Standard output as is (export writes YAML there). */
  write: (text: string) => void;
  /** A path as the user typed it, from where they ran the command (npm run changes directory). */
  path: (file: string) => string;
}

export interface Command {
  name: string;
  /** The arguments after the command name, as the help shows them. */
  args: string;
  summary: string;
  /** More lines of help: exit codes, what is sent. */
  details: string[];
  options: Record<string, OptionSpec>;
  /** Positional arguments: exactly this many. */
  positionals: string[];
  run(
    context: Context,
    positionals: string[],
    values: Record<string, string | boolean | undefined>,
  ): Promise<number>;
}

export const fromCwd = (base: string) => (file: string) =>
  isAbsolute(file) ? file : resolve(base, file);

/** "--revision must be a whole number, not x". */
export function wholeNumber(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new UsageError(`${what} must be a whole number, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** Wrong arguments: the message and the command's usage, exit 64. */
export class UsageError extends Error {}
