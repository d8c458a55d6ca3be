import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { removeDrafts } from '@/lib/drafts';

afterEach(() => {
  cleanup();
  // Unsaved form input is kept per tab (lib/drafts), and handed over in memory after a 412: one
  // test's typing is not the next one's.
  removeDrafts();
  sessionStorage.clear();
});
