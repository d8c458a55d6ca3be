import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { hashPassword } from './domain/passwords.ts';
import type { UsersRepository } from './repositories/users-repository.ts';

export interface DataDir {
  databaseFile: string;
  sessionSecret: string;
  agentToken: string;
}

/** A secret kept in the data folder (mode 0600), generated on first use. */
function secretFile(dir: string, name: string, generate: () => string): string {
  const file = join(dir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return value;
}

export function prepareDataDir(dir: string, agentToken: string | undefined): DataDir {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    databaseFile: join(dir, 'ipfe-oam.sqlite'),
    sessionSecret: secretFile(dir, 'session-secret', () => randomBytes(32).toString('base64url')),
    agentToken:
      agentToken ?? secretFile(dir, 'agent-token', () => randomBytes(32).toString('base64url')),
  };
}

/**
 * First start: user `admin` with IPFE_ADMIN_PASSWORD, or with a generated password that is
 * printed once and left in data/initial-admin-password (0600). Later starts change nothing.
 */
export async function ensureAdmin(
  users: UsersRepository,
  dir: string,
  password: string | undefined,
  announce: (line: string) => void,
): Promise<void> {
  if ((await users.count()) > 0) return;
  const chosen = password ?? randomBytes(12).toString('base64url');
  await users.create('admin', 'admin', await hashPassword(chosen));
  if (!password) {
    const file = join(dir, 'initial-admin-password');
    writeFileSync(file, `${chosen}\n`, { mode: 0o600 });
    announce(`Created user admin with password ${chosen} (also in ${file})`);
  } else {
    announce('Created user admin with the password from IPFE_ADMIN_PASSWORD');
  }
}
