import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { removeDrafts } from '@/lib/drafts';

// The pages after the first are one chunk, loaded on first use (router.tsx). Loaded here first:
// compiling it takes the test runner about the 1 s a `findBy` waits, which says nothing of the
// page. The pages still suspend once, as in the browser.
beforeAll(async () => {
  await import('@/app/routes/other-pages');
});

afterEach(() => {
  cleanup();
  // Unsaved form input is kept per tab (lib/drafts), and handed over in memory after a 412: one
  // test's typing is not the next one's.
  removeDrafts();
  sessionStorage.clear();
});
