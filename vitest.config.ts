import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/api', 'apps/agent', 'apps/cli', 'scripts', 'apps/web', 'deploy'],
  },
});
