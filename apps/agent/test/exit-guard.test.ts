import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from './netns-topology.ts';
import { until } from './poll.ts';
import { describeLab, labMissing } from './lab.ts';

/**
 * The exit guard undoes what an agent killed outright held in the kernel; what survives even the
 * guard, the next agent in the same state folder undoes. In a network namespace of the test's own.
 */
const NS = `ipg${process.pid % 10000}`;
const ADDRESS = '10.231.12.5';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-guard-'));
const running: ChildProcess[] = [];

async function startDriver(stateDir: string, address?: string) {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      NS,
      process.execPath,
      '--import',
      'tsx',
      join(repoRoot, 'apps/agent/test/exit-guard-driver.ts'),
      stateDir,
      ...(address ? [address] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  running.push(child);
  const [data] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(data.toString()).toContain('ready');
  return child;
}

const holds = () =>
  spawnSync('ip', ['-n', NS, 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }).stdout.includes(
    `${ADDRESS}/32`,
  );
const killGroup = (child: ChildProcess) => process.kill(-child.pid!, 'SIGKILL');
const guardOf = (stateDir: string) =>
  spawnSync('pgrep', ['-f', `ipfe-agent-guard.js ${stateDir}`], { encoding: 'utf8' }).stdout.trim();

describeLab('the exit guard', labMissing(), () => {
  beforeAll(() => {
    spawnSync('ip', ['netns', 'add', NS]);
    spawnSync('ip', ['-n', NS, 'link', 'set', 'lo', 'up']);
  });

  afterAll(() => {
    for (const child of running) {
      try {
        killGroup(child);
      } catch {
        // gone already
      }
    }
    spawnSync('pkill', ['-9', '-f', `ipfe-agent-guard.js ${dir}`]);
    spawnSync('ip', ['netns', 'del', NS]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes the address of an agent killed with SIGKILL (its whole process group)', async () => {
    const state = mkdtempSync(join(dir, 'a-'));
    const agent = await startDriver(state, ADDRESS);
    expect(holds()).toBe(true);
    killGroup(agent);
    await until('the address removed', () => !holds());
    await until(
      'the guard gone, its list with it',
      () => guardOf(state) === '' && !existsSync(join(state, 'undo.json')),
    );
  });

  it('undoes nothing after a dismissal (a clean stop undoes things itself)', async () => {
    const state = mkdtempSync(join(dir, 'b-'));
    const agent = await startDriver(state, ADDRESS);
    process.kill(-agent.pid!, 'SIGTERM');
    await until('the guard gone', () => guardOf(state) === '');
    expect(holds()).toBe(true); // this driver's clean stop "forgot" it, and the guard did not touch it
    expect(existsSync(join(state, 'undo.json'))).toBe(false);
    spawnSync('ip', ['-n', NS, 'addr', 'del', `${ADDRESS}/32`, 'dev', 'lo']);
  });

  it('has the next agent undo what a killed agent and its guard both left', async () => {
    const state = mkdtempSync(join(dir, 'c-'));
    const agent = await startDriver(state, ADDRESS);
    spawnSync('pkill', ['-9', '-f', `ipfe-agent-guard.js ${state}`]); // as a container stop would
    killGroup(agent);
    await new Promise((r) => setTimeout(r, 300));
    expect(holds()).toBe(true);
    await startDriver(state);
    expect(holds()).toBe(false);
    expect(existsSync(join(state, 'undo.json'))).toBe(false);
  });

  it('runs nothing but ip, nft and conntrackd from a state folder', async () => {
    const state = mkdtempSync(join(dir, 'd-'));
    const marker = join(state, 'smuggled');
    writeFileSync(join(state, 'undo.json'), JSON.stringify([['touch', marker], 'ip', [1, 2]]));
    await startDriver(state);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(state, 'undo.json'))).toBe(false);
  });
});
