import { spawnSync } from 'node:child_process';

const has = (binary: string) => spawnSync('which', [binary], { stdio: 'ignore' }).status === 0;

/**
 * Makes sure these binaries exist, installing their Debian packages when run as root; returns
 * the reason it cannot (not root, no apt, install failed), or null when they are all there.
 */
export function ensureTools(binaries: Record<string, string>): string | null {
  const missing = Object.entries(binaries).filter(([binary]) => !has(binary));
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.map(([, pkg]) => pkg))];
  const names = missing.map(([b]) => b).join(', ');
  if (process.getuid?.() !== 0)
    return `${names} missing and not root: run \`apt-get install -y ${packages.join(' ')}\``;
  if (!has('apt-get')) return `${names} missing and no apt-get to install ${packages.join(' ')}`;
  console.log(`bench: installing ${packages.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], {
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { env, stdio: 'ignore', timeout: 300_000 });
    result = install();
  }
  const still = missing.filter(([binary]) => !has(binary)).map(([b]) => b);
  if (still.length > 0)
    return `cannot install ${packages.join(' ')}: ${(result.stderr || result.stdout || '').trim().split('\n').pop()}`;
  return null;
}

/**
 * Makes sure a Debian package without a binary to look for (a library) is there, installing it
 * when run as root; returns the reason it cannot, or null when `present()` holds.
 */
export function ensurePackage(pkg: string, present: () => boolean): string | null {
  if (present()) return null;
  if (process.getuid?.() !== 0)
    return `${pkg} missing and not root: run \`apt-get install -y ${pkg}\``;
  if (!has('apt-get')) return `${pkg} missing and no apt-get to install it`;
  console.log(`bench: installing ${pkg} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], {
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { env, stdio: 'ignore', timeout: 300_000 });
    result = install();
  }
  return present()
    ? null
    : `cannot install ${pkg}: ${(result.stderr || result.stdout || '').trim().split('\n').pop()}`;
}
