import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  // Unsaved form input is kept per tab (lib/drafts): one test's typing is not the next one's.
  sessionStorage.clear();
});
