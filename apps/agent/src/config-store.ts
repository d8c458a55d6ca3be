import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ConfigDocument } from '@ipfe/schema';
import { checkDocument } from './document-check.ts';

const FILE = 'config.json';

/**
 * The applied configuration on disk. A save writes a temporary file, fsyncs it, renames it over
 * the old one and fsyncs the folder: after a crash the file holds the old or the new document,
 * never a mix.
 */
export class ConfigStore {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  get path(): string {
    return join(this.dir, FILE);
  }

  /** The persisted document, or null (none yet); an unreadable file is an error for the caller. */
  load(): { document: ConfigDocument } | { error: string } | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return { error: (err as Error).message };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { error: `${this.path} is not valid JSON` };
    }
    const checked = checkDocument(value);
    if (!checked.ok)
      return { error: `${this.path}: ${checked.fields[0]?.path}: ${checked.fields[0]?.message}` };
    return { document: checked.document };
  }

  save(document: ConfigDocument): void {
    const temporary = `${this.path}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(document));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Fault injection for the crash-safety test: die between writing and renaming.
    if (process.env.IPFE_AGENT_FAULT === 'crash-before-rename')
      process.kill(process.pid, 'SIGKILL');
    renameSync(temporary, this.path);
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}
