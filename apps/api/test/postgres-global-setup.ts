import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser URL of the run's PostgreSQL; unset when the suite runs on SQLite. */
    postgresAdminUrl: string;
  }
}

/** The API suite's PostgreSQL pass: one server for the run, a fresh database per test app. */
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
