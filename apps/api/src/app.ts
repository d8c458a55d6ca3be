import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import db from './plugins/db.ts';
import errors, { zodValidatorCompiler } from './plugins/errors.ts';
import jsonBody from './plugins/json-body.ts';
import auth, { type AuthOptions } from './plugins/auth.ts';
import openapi from './plugins/openapi.ts';
import configRepository from './repositories/config-repository.ts';
import usersRepository from './repositories/users-repository.ts';
import apiTokensRepository from './repositories/api-tokens-repository.ts';
import apiTokenRoutes from './routes/api-tokens.ts';
import configurationRoutes from './routes/configuration.ts';
import sessionRoutes from './routes/session.ts';
import healthRoutes from './routes/health.ts';
import optionsRoutes from './routes/options.ts';
import collectionRoutes from './routes/collections.ts';
import revisionRoutes from './routes/revisions.ts';
import importRoutes from './routes/import.ts';
import usersRoutes from './routes/users.ts';
import web from './plugins/web.ts';
import agentSyncRepository from './repositories/agent-sync-repository.ts';
import agentSync from './plugins/agent-sync.ts';
import { AGENT_START_GRACE_MS } from './services/unreachable-alarm.ts';
import ipfeRoutes from './routes/ipfe.ts';
import measurementRoutes from './routes/measurements.ts';
import { MEASUREMENT_WINDOW } from './domain/measurement-rates.ts';
import auditRepository from './repositories/audit-repository.ts';
import audit from './plugins/audit.ts';
import auditRoutes from './routes/audit.ts';
import securityHeaders from './plugins/security-headers.ts';
import type { AgentSyncOptions } from './services/agent-sync.ts';
import metrics from './metrics.ts';
import snmpTrapsRepository from './repositories/snmp-traps-repository.ts';
import snmpTraps from './plugins/snmp-traps.ts';
import snmpTrapRoutes from './routes/snmp-traps.ts';
import cluster from './plugins/cluster.ts';
import type { ClusterOptions } from './services/cluster.ts';

export interface AppOptions {
  /** The SQLite file of the store, when `databaseUrl` is not given. */
  databaseFile: string;
  /** A PostgreSQL URL (`postgres://…`): the store is there instead of in `databaseFile`. */
  databaseUrl?: string;
  sessionSecret: string;
  sessionTtlMs?: number;
  secureCookies?: boolean;
  loginAttemptsPerAddress?: number;
  loginFailuresPerUser?: number;
  bodyLimitBytes?: number;
  logger?: FastifyServerOptions['logger'];
  /** Serve HTTPS with this certificate and key (PEM). */
  https?: { cert: string; key: string };
  /** The built GUI (apps/web/dist); not served when absent. */
  webRoot?: string;
  /** The token the agents accept pushes with. */
  agentToken?: string;
  /** How this OAM takes part in a cluster on PostgreSQL (tests shorten the periods). */
  cluster?: ClusterOptions;
  /** Push to and poll the agents (default on); tests of the API alone turn it off. */
  agentSync?: Partial<AgentSyncOptions> & { enabled?: boolean };
}

/** Composes the API: infrastructure plugins, then repositories, then routes. Nothing listens here. */
export async function buildApp(options: AppOptions) {
  const app = Fastify({
    logger: options.logger ?? false,
    // Reads (the GUI polls status every second) are not worth a log line each; changes are.
    logController: new LogController({
      disableRequestLogging: (request) => request.method === 'GET',
    }),
    bodyLimit: options.bodyLimitBytes ?? 256 * 1024,
    ...(options.https ? { https: options.https } : {}),
    trustProxy: false,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errors);
  await app.register(jsonBody);
  await app.register(securityHeaders);
  await app.register(db, {
    location: options.databaseUrl ? { url: options.databaseUrl } : { file: options.databaseFile },
  });
  await app.register(cluster, options.cluster ?? {});
  await app.register(usersRepository);
  await app.register(apiTokensRepository);
  await app.register(configRepository);
  await app.register(agentSyncRepository);
  await app.register(auditRepository);
  await app.register(snmpTrapsRepository);
  await app.register(agentSync, {
    enabled: options.agentSync?.enabled ?? true,
    token: options.agentToken ?? '',
    pollIntervalMs: options.agentSync?.pollIntervalMs ?? 1000,
    requestTimeoutMs: options.agentSync?.requestTimeoutMs ?? 3000,
    backoffMinMs: options.agentSync?.backoffMinMs ?? 250,
    backoffMaxMs: options.agentSync?.backoffMaxMs ?? 5000,
    startGraceMs: options.agentSync?.startGraceMs ?? AGENT_START_GRACE_MS,
    agentCa: options.agentSync?.agentCa,
    measurementWindow: options.agentSync?.measurementWindow ?? MEASUREMENT_WINDOW,
  });
  await app.register(snmpTraps);
  await app.register(metrics);
  const authOptions: AuthOptions = {
    sessionSecret: options.sessionSecret,
    sessionTtlMs: options.sessionTtlMs ?? 8 * 3600 * 1000,
    secureCookies: options.secureCookies ?? Boolean(options.https),
    loginAttemptsPerAddress: options.loginAttemptsPerAddress ?? 30,
    loginFailuresPerUser: options.loginFailuresPerUser ?? 5,
  };
  await app.register(auth, authOptions);
  await app.register(audit);
  await app.register(openapi);

  await app.register(healthRoutes);
  await app.register(sessionRoutes);
  await app.register(optionsRoutes);
  await app.register(snmpTrapRoutes);
  await app.register(collectionRoutes);
  await app.register(revisionRoutes);
  await app.register(importRoutes);
  await app.register(usersRoutes);
  await app.register(apiTokenRoutes);
  await app.register(configurationRoutes);
  await app.register(ipfeRoutes);
  await app.register(measurementRoutes);
  await app.register(auditRoutes);
  await app.register(web, { root: options.webRoot });
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
