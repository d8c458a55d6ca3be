/**
 * The API test files that are of the SQLite file itself, left out of the PostgreSQL pass
 * (api-postgres in vitest.config.ts): the online backup of the file, SIGKILLs of an OAM writing
 * it, restarts and tools that open the file, and tests that edit it by hand.
 */
export const SQLITE_ONLY = ['test/backup.test.ts', 'test/crash.test.ts', 'test/restart.test.ts'];
