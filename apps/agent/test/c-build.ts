import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

/** A C program the tests and benchmarks run: its source, and gcc's flags and libraries. */
export interface CProgram {
  source: string;
  flags: readonly string[];
  libraries: readonly string[];
}

const builds = new Map<string, Promise<string>>();

/**
 * Compiles a test's C program into a cache folder under the system's temporary folder, once per
 * version of the source (and flags): later calls, in this process or another, reuse the binary.
 */
export function compiled(program: CProgram): Promise<string> {
  const name = basename(program.source, '.c');
  let build = builds.get(program.source);
  if (!build) {
    build = (async () => {
      const hash = createHash('sha256')
        .update(readFileSync(program.source))
        .update([...program.flags, ...program.libraries].join(' '))
        .digest('hex')
        .slice(0, 16);
      const dir = join(tmpdir(), `ipfe-${name}`);
      const binary = join(dir, `${name}-${hash}`);
      if (existsSync(binary)) return binary;
      mkdirSync(dir, { recursive: true });
      // Built beside and renamed: test files building at once never run a half-written binary.
      const partial = `${binary}.${process.pid}.tmp`;
      try {
        await promisify(execFile)('gcc', [
          ...program.flags,
          '-o',
          partial,
          program.source,
          ...program.libraries,
        ]);
      } catch (error) {
        rmSync(partial, { force: true });
        const stderr = (error as { stderr?: string }).stderr?.trim();
        throw new Error(`gcc ${basename(program.source)}: ${stderr || (error as Error).message}`);
      }
      renameSync(partial, binary);
      return binary;
    })();
    builds.set(program.source, build);
    build.catch(() => builds.delete(program.source));
  }
  return build;
}
