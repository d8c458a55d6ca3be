export interface Line {
  text: string;
  /** The dot path of the value the line shows ("targetSets.1.servers.0.weight"). */
  path: string;
}

/** The configuration keyed by identity, as the API's diff names paths (from @ipfe/schema). */
export { keyedConfig } from '@ipfe/schema';

/** Pretty JSON, one entry per line, each line knowing the path of what it shows. */
export function linesOf(value: unknown): Line[] {
  const lines: Line[] = [];
  const walk = (v: unknown, path: string, indent: string, prefix: string, comma: string) => {
    const join = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
    if (Array.isArray(v)) {
      if (v.length === 0) {
        lines.push({ text: `${indent}${prefix}[]${comma}`, path });
        return;
      }
      lines.push({ text: `${indent}${prefix}[`, path });
      v.forEach((item, i) => walk(item, join(i), `${indent}  `, '', i < v.length - 1 ? ',' : ''));
      lines.push({ text: `${indent}]${comma}`, path });
      return;
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (entries.length === 0) {
        lines.push({ text: `${indent}${prefix}{}${comma}`, path });
        return;
      }
      lines.push({ text: `${indent}${prefix}{`, path });
      entries.forEach(([key, item], i) =>
        walk(
          item,
          join(key),
          `${indent}  `,
          `${JSON.stringify(key)}: `,
          i < entries.length - 1 ? ',' : '',
        ),
      );
      lines.push({ text: `${indent}}${comma}`, path });
      return;
    }
    lines.push({ text: `${indent}${prefix}${JSON.stringify(v)}${comma}`, path });
  };
  walk(value, '', '', '', '');
  return lines;
}

/** Whether a line's path is one of `paths` or lies inside one of them. */
export function isWithin(path: string, paths: string[]): boolean {
  return paths.some((p) => path === p || path.startsWith(`${p}.`));
}
