export * from './heartbeat.ts';
export * from './reporter.ts';
