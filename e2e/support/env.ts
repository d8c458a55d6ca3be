import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ARTIFACTS = join(REPO_ROOT, 'artifacts');

export type RoleName = 'admin' | 'operator' | 'viewer';

export const ADMIN = { name: 'admin', password: 'e2e-admin-pass', role: 'admin' as const };
export const USERS = [
  { name: 'olga', password: 'e2e-operator-pass', role: 'operator' as const },
  { name: 'vera', password: 'e2e-viewer-pass', role: 'viewer' as const },
];

export const credentialsOf = (role: RoleName) =>
  role === 'admin' ? ADMIN : USERS.find((u) => u.role === role)!;

/** Where the global setup leaves each role's logged-in session (git-ignored, like all results). */
export const authFile = (role: RoleName) =>
  join(REPO_ROOT, 'test-results', 'e2e-auth', `${role}.json`);
