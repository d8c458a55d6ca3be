import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configDocumentSchema } from '@ipfe/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, seedPrerequisites, startApp, type TestApp } from './helpers.ts';

const run = promisify(execFile);
const exportCli = new URL('../src/cli/export.ts', import.meta.url).pathname;
const tsx = new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
let t: TestApp;

beforeAll(async () => {
  t = await startApp();
  await seedPrerequisites(await login(t.app)); // revisions 1–6
});
afterAll(() => t.close());

/** The export as an operator runs it beside the OAM: the same IPFE_DATABASE_URL, or data folder. */
const exportWith = (args: string[]) =>
  run(process.execPath, [tsx, exportCli, ...args], {
    env: {
      ...process.env,
      IPFE_DATA_DIR: t.dir,
      IPFE_DATABASE_URL: 'url' in t.location ? t.location.url : '',
    },
  });

describe('npm run export', () => {
  it('prints the latest config document, valid for the agents', async () => {
    const { stdout } = await exportWith([]);
    const document = configDocumentSchema.parse(JSON.parse(stdout));
    expect(document.revision).toBe(6);
    expect(document.config.appServers).toHaveLength(3);
  });

  it('writes any revision to a file', async () => {
    const out = join(t.dir, 'r2.json');
    const { stderr } = await exportWith(['--revision', '2', '--out', out]);
    expect(stderr).toMatch(/revision 2 \(sha256 [0-9a-f]{64}\) written to/);
    expect(JSON.parse(readFileSync(out, 'utf8')).config.xsiNetworks).toEqual([
      { name: 'xsi1', cidr: '127.1.0.0/16' },
    ]);
  });

  it('refuses a revision that does not exist, and a bad flag, with a clear line', async () => {
    const missing = await exportWith(['--revision', '99']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('revision 99 does not exist'),
    });
    const bad = await exportWith(['--revision', 'x']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--revision must be a whole number'),
    });
  });
});
