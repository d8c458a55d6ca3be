import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.ts';

const run = promisify(execFile);
const script = new URL('./openapi.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ipfe-openapi-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Failure = { code: number; stdout: string; stderr: string };

describe('npm run lint:openapi (the real Redocly CLI)', () => {
  it("passes the OAM's document with no error and no warning", async () => {
    const { stdout } = await run('npx', ['tsx', script, 'check']);
    expect(stdout).toContain('artifacts/openapi.json: 0 errors, 0 warnings');
  });

  it('fails on a mere warning, naming the rule and the place', async () => {
    const document = (await openApiDocument()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    delete document.paths['/api/alarms']!.get!.operationId;
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const failure = (await run('npx', ['tsx', script, 'lint', file]).catch(
      (e: Failure) => e,
    )) as Failure;
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(
      'warning operation-operationId at #/paths/~1api~1alarms/get/operationId',
    );
  });
});
