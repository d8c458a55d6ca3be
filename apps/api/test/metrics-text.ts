import { execFile, spawnSync } from 'node:child_process';

/** One sample of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape, as a Prometheus server reads them (comments skipped). */
export function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with this name and these labels (among others), or undefined. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}) {
  return samplesOf(text).find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}

/** The metric families a scrape declares (`# TYPE name kind`). */
export function familiesOf(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const [, name, kind] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(name!, kind!);
  return families;
}

/**
 * The scrape without prom-client's own process metrics (nodejs_*, process_*): three of those
 * (nodejs_active_handles_total…) are gauges named like counters, which promtool reports.
 */
export function withoutLibraryDefaults(text: string): string {
  const library = /^(?:# (?:HELP|TYPE) )?(?:nodejs_|process_)/;
  return text
    .split('\n')
    .filter((line) => !library.test(line))
    .join('\n');
}

export const promtoolMissing =
  spawnSync('promtool', ['--version'], { stdio: 'ignore' }).error !== undefined
    ? 'promtool is not installed (Debian: apt-get install -y prometheus; .ci/run installs it)'
    : null;

/** `promtool check metrics` on a scrape: its exit code and what it printed. */
export function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
    child.stdin!.end(text);
  });
}
