/**
 * Just enough of the Dockerfile syntax to check this repository's Dockerfiles without a Docker
 * engine: instructions (with `\` continuations and comment lines), stages, exec-form arguments,
 * COPY sources and destinations, ENV, and .dockerignore matching.
 */

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  index: number;
  name: string | null;
  base: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#') || (trimmed === '' && !pending)) return;
    const continues = trimmed.endsWith('\\');
    const part = continues ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending
      ? { text: `${pending.text} ${part}`, line: pending.line }
      : { text: part, line: i + 1 };
    if (continues) return;
    const [keyword, ...rest] = pending.text.split(/\s+/);
    instructions.push({
      keyword: keyword!.toUpperCase(),
      args: rest.join(' '),
      line: pending.line,
    });
    pending = null;
  });
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [base, as, name] = instruction.args.split(/\s+/);
      stages.push({
        index: stages.length,
        base: base!,
        name: as?.toUpperCase() === 'AS' ? name! : null,
        instructions: [],
      });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** `["node", "x.js"]` → ['node', 'x.js']; shell form → null. */
export function execForm(args: string): string[] | null {
  if (!args.trim().startsWith('[')) return null;
  return JSON.parse(args) as string[];
}

/** Leading `--flag=value` options and the remaining words. */
export function splitFlags(args: string): { flags: Record<string, string>; words: string[] } {
  const flags: Record<string, string> = {};
  const words: string[] = [];
  for (const word of args.split(/\s+/).filter(Boolean)) {
    const flag = /^--([a-z-]+)(?:=(.*))?$/.exec(word);
    if (flag && words.length === 0) flags[flag[1]!] = flag[2] ?? 'true';
    else words.push(word);
  }
  return { flags, words };
}

export interface Copy {
  from: string | null;
  source: string;
  /** Where it lands, relative to the stage's WORKDIR when not absolute. */
  dest: string;
}

/** Every (source, destination) pair of the COPY instructions of a stage. */
export function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .flatMap((i) => {
      const { flags, words } = splitFlags(i.args);
      const dest = words.at(-1)!;
      return words.slice(0, -1).map((source) => ({
        from: flags.from ?? null,
        source: source.replace(/\/$/, ''),
        dest: dest.endsWith('/') ? `${dest}${source.split('/').filter(Boolean).at(-1)}` : dest,
      }));
    });
}

/** `ENV A=1 B=2` lines of a stage, as one map. */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === 'ENV'))
    for (const pair of i.args.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  return env;
}

/**
 * The final stage and the stages whose whole /app it takes (`COPY --from=x /app /app`),
 * recursively: their node_modules and sources are the image's.
 */
export function appStages(stages: Stage[]): Stage[] {
  const result: Stage[] = [stages.at(-1)!];
  for (let i = 0; i < result.length; i++)
    for (const copy of copiesOf(result[i]!))
      if (copy.from !== null && copy.source === '/app') {
        const from = stages.find((s) => s.name === copy.from || String(s.index) === copy.from);
        if (from && !result.includes(from)) result.push(from);
      }
  return result;
}

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Whether .dockerignore leaves `path` (relative to the context) out of the build context: a
 * pattern that matches the path or one of its parent folders excludes it; the last matching
 * pattern wins, `!pattern` taking a path back in.
 */
export function dockerignored(ignoreFile: string, path: string): boolean {
  const patterns = ignoreFile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const parts = path.split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const re = globToRegExp((negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, ''));
    if (candidates.some((c) => re.test(c))) ignored = !negated;
  }
  return ignored;
}
