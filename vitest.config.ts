import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/api', 'apps/agent', 'scripts', 'apps/web', 'deploy'],
  },
});
