import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import Fastify, { LogController, type FastifyError } from 'fastify';
import type { Agent } from './agent.ts';
import type { PushOutcome } from './push-outcome.ts';

const PUBLIC = new Set(['/v1/health']);

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const errorBody = (code: string, message: string) => ({ error: { code, message, fields: [] } });

/** A push's outcome as the HTTP answer: 200, 409 STALE_REVISION or 422 INVALID_CONFIG. */
export function pushReply(result: PushOutcome) {
  switch (result.outcome) {
    case 'applied':
      return { status: 200, body: { revision: result.revision, sha256: result.sha256 } } as const;
    case 'stale': {
      const { message } = result;
      const fields = [{ path: 'revision', message }];
      return { status: 409, body: { error: { code: 'STALE_REVISION', message, fields } } } as const;
    }
    case 'invalid': {
      const { message, fields } = result;
      return { status: 422, body: { error: { code: 'INVALID_CONFIG', message, fields } } } as const;
    }
  }
}

/**
 * The agent's control API (SPEC §4.1): config push and read, status, metrics, health. Every route
 * but health needs the deployment token; bodies are limited and slow clients are cut off.
 */
export function buildControlServer(
  agent: Agent,
  token: string,
  limits: { requestTimeoutMs?: number; tls?: { cert: string; key: string } | null } = {},
) {
  const requestTimeout = limits.requestTimeoutMs ?? 15_000;
  const app = Fastify({
    loggerInstance: agent.log.child({ component: 'control' }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 4 * 1024 * 1024,
    // A slow client (one header line at a time) is cut off once requestTimeout passes: Node checks
    // every connectionsCheckingInterval, 30 s by default, which would let it linger.
    serverFactory: (handler) => {
      const timeouts = {
        requestTimeout,
        headersTimeout: requestTimeout,
        connectionsCheckingInterval: Math.min(1000, requestTimeout / 2),
      };
      return limits.tls
        ? (https.createServer({ ...timeouts, ...limits.tls }, handler) as unknown as http.Server)
        : http.createServer(timeouts, handler);
    },
    keepAliveTimeout: 5_000,
  });

  app.addHook('onRequest', async (request, reply) => {
    if (PUBLIC.has(request.url)) return;
    if (!tokenMatches(request.headers.authorization, token)) {
      return reply
        .code(401)
        .send(errorBody('UNAUTHENTICATED', 'A valid Authorization: Bearer token is required'));
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      agent.counts.configRejects++;
      return reply
        .code(422)
        .send(errorBody('INVALID_CONFIG', 'The configuration is not valid JSON'));
    }
    const status =
      err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'control request failed');
    const code =
      status === 413
        ? 'PAYLOAD_TOO_LARGE'
        : status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : status === 500
            ? 'INTERNAL'
            : 'BAD_REQUEST';
    return reply
      .code(status)
      .send(errorBody(code, status === 500 ? 'Internal error' : err.message));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('NOT_FOUND', `No route ${request.method} ${request.url}`)),
  );

  app.put('/v1/config', async (request, reply) => {
    const { status, body } = pushReply(await agent.push(request.body));
    return reply.code(status).send(body);
  });
  app.get('/v1/config', async (_request, reply) => {
    const document = agent.document;
    if (!document)
      return reply.code(404).send(errorBody('NOT_FOUND', 'No configuration applied yet'));
    return document;
  });
  app.get('/v1/status', async () => agent.status());
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', agent.metrics.contentType).send(await agent.metrics.metrics()),
  );
  app.get('/v1/health', async () => ({
    status: 'ok',
    slot: agent.slot,
    revision: agent.document?.revision ?? null,
  }));
  return app;
}
