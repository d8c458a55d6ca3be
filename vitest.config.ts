import { defineConfig } from 'vitest/config';
import { SQLITE_ONLY } from './apps/api/test/engines.ts';

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'apps/api',
      // The API suite once more on a real PostgreSQL that the run starts (decision 021);
      // IPFE_TEST_STORE=sqlite leaves this pass out.
      ...(process.env.IPFE_TEST_STORE !== 'sqlite'
        ? [
            {
              extends: './apps/api/vitest.config.ts',
              test: {
                name: 'api-postgres',
                root: './apps/api',
                include: ['test/**/*.test.ts'],
                exclude: SQLITE_ONLY,
                globalSetup: ['./test/postgres-global-setup.ts'],
              },
            },
          ]
        : []),
      'apps/agent',
      'apps/cli',
      'scripts',
      'apps/web',
      'deploy',
    ],
  },
});
