import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'reporter', include: ['src/**/*.test.ts'] },
});
