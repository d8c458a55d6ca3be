import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';
import type { FieldError } from '@ipfe/schema';
import { CliError } from './errors.ts';

/** A config document read from a YAML (or JSON) file, and where each of its values is in it. */
export interface DocumentFile {
  file: string;
  value: Record<string, unknown>;
  /** "site.yaml:12:9" for a path of the document ("config.targetSets.0.servers.1.weight"). */
  where(path: string): string;
}

/** The text of `path`; errors name the file as the user typed it (`file`). */
export function readText(path: string, file: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(
      `${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)})`,
    );
  }
}

/**
 * Where `segments` is in the file: the key of a mapping's entry (a line reads "weight: 70000"),
 * an item of a list, or the deepest of them on the way there that exists (a missing field).
 */
function nearestNode(doc: Document, segments: string[]): Node | null {
  let node: unknown = doc.contents;
  let found = node as Node | null;
  for (const segment of segments) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => String((p.key as { value?: unknown })?.value) === segment,
      );
      if (!pair) break;
      found = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = Number(segment);
      if (!Number.isInteger(index) || !node.items[index]) break;
      node = node.items[index];
      found = node as Node;
    } else break;
  }
  return found;
}

/** Parses a config document file; a YAML error is one line naming file, line and column. */
export function readDocumentFile(path: string, file: string): DocumentFile {
  const text = readText(path, file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new CliError(`${file}${at ? `:${at.line}:${at.col}` : ''}: ${message}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(
      `${file}: not a config document (a mapping with formatVersion, revision, sha256 and config, as ipfe export writes)`,
    );
  }
  return {
    file,
    value: value as Record<string, unknown>,
    where(path) {
      const node = nearestNode(doc, path.split('.'));
      const offset = node?.range?.[0];
      if (offset === undefined) return file;
      const { line, col } = lines.linePos(offset);
      return `${file}:${line}:${col}`;
    },
  };
}

/** One line per problem: "site.yaml:12:9: config.targetSets.0.servers.1.weight: …". */
export function problemLines(document: DocumentFile, problems: FieldError[]): string[] {
  return problems.map((p) =>
    p.path
      ? `${document.where(p.path)}: ${p.path}: ${p.message}`
      : `${document.file}: ${p.message}`,
  );
}
