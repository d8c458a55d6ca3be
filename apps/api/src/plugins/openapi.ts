import fastifySwagger, {
  type SwaggerTransform,
  type SwaggerTransformObject,
} from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema, type ApiErrorCode } from '@ipfe/schema';
import { ERROR_STATUS } from '../http/errors.ts';
import { accessOf, isWrite, SESSION_COOKIE } from './auth.ts';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The error codes a route answers besides those its shape implies (see `impliedErrors`).
     * Documentation only: the OpenAPI document lists them, the handlers answer them.
     */
    errors?: readonly ApiErrorCode[];
  }
}

/** The answers of a route that requires If-Match (http/etag.ts), for its `errors`. */
export const IF_MATCH_ERRORS = [
  'PRECONDITION_REQUIRED',
  'PRECONDITION_FAILED',
] as const satisfies readonly ApiErrorCode[];

/** What each error code means to a client, as the document's error answers say it. */
const MEANING: Record<ApiErrorCode, string> = {
  VALIDATION: 'a field or parameter is invalid; `error.fields` names each one (path and message)',
  INVALID_JSON: 'the body is not valid JSON',
  UNAUTHENTICATED:
    'not logged in, or the session expired (on login: wrong user name or password); with an API token: unknown, revoked, or sent together with a session cookie',
  CSRF: 'the x-csrf-token header is missing or is not the csrfToken of this login',
  FORBIDDEN: 'the role of the user is not enough',
  NOT_FOUND: 'what the path names does not exist',
  METHOD_NOT_ALLOWED: 'the path does not take this method',
  CONFLICT:
    'an item with that key exists already (PUT /api/config: the running revision is no longer the one planned against; `running` is its number)',
  IN_USE: 'other items refer to this one',
  LAST_ADMIN: 'the last admin can neither be deleted nor lose the admin role',
  PRECONDITION_FAILED:
    'If-Match names a version that is no longer the current one; `current` is the item as it is now and the ETag header its version',
  PAYLOAD_TOO_LARGE: 'the body is too large',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent as application/json',
  PRECONDITION_REQUIRED: 'If-Match is missing',
  RATE_LIMITED: 'too many login attempts; Retry-After says in how many seconds to try again',
  INTERNAL: 'an unexpected failure; the server log has the details',
  UNAVAILABLE: 'the service cannot answer now',
};

/** Response headers of some error answers. */
const ERROR_HEADERS: Partial<Record<number, Record<string, object>>> = {
  412: { ETag: { description: 'The current version', schema: { type: 'string' } } },
  429: {
    'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } },
  },
};

/**
 * The error codes every route of this shape answers: request validation, the auth plugin's
 * session, CSRF and role checks (the same rule as plugins/auth.ts), and the 500 of any failure.
 */
function impliedErrors(method: string, access: string, schema: FastifySchema): ApiErrorCode[] {
  const codes: ApiErrorCode[] = [];
  if (schema.body || schema.querystring || schema.params) codes.push('VALIDATION');
  if (schema.body) codes.push('INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (access !== 'public') {
    codes.push('UNAUTHENTICATED');
    if (isWrite(method)) codes.push('CSRF');
    if (access !== 'viewer') codes.push('FORBIDDEN');
  }
  codes.push('INTERNAL');
  return codes;
}

/**
 * How a route authenticates: none when public, else the session cookie, and on a change the
 * CSRF header beside it (both at once: one requirement object); or an API token alone.
 */
function securityOf(method: string, access: string): Record<string, string[]>[] {
  if (access === 'public') return [];
  return [
    isWrite(method) ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] },
    { apiToken: [] },
  ];
}

/** Where the error codes of an operation wait between the two transforms. */
const ERRORS_KEY = 'x-ipfe-errors';

/** Per route: zod → JSON Schema, then its security and (for `transformObject`) its errors. */
const transform: SwaggerTransform = (document) => {
  if (!document.schema) return jsonSchemaTransform(document);
  const { errors: declared = [], ...schema } = document.schema;
  const result = jsonSchemaTransform({ ...document, schema });
  if (result.schema?.hide) return result;
  const method = [document.route.method].flat()[0]!.toUpperCase();
  const access = accessOf(method, document.route.config?.access);
  // A route without a declared answer gets the 200 "Default Response"; our deletes answer 204.
  const response =
    result.schema.response ??
    (method === 'DELETE' ? { 204: { type: 'null', description: 'Done; no body' } } : undefined);
  const codes = [...new Set([...impliedErrors(method, access, schema), ...declared])];
  return {
    url: result.url,
    schema: {
      ...result.schema,
      ...(response ? { response } : {}),
      security: securityOf(method, access),
      [ERRORS_KEY]: codes,
    } as FastifySchema,
  };
};

const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

const { $schema: _, ...errorBodyJsonSchema } = z.toJSONSchema(errorBodySchema, {
  target: 'openapi-3.0',
  io: 'output',
});

const ifMatchParameter = {
  name: 'If-Match',
  in: 'header',
  required: true,
  description:
    'The ETag of the version you edited (the ETag header of the read or of the last write)',
  schema: { type: 'string' },
};

interface Operation {
  responses?: Record<string, unknown>;
  parameters?: unknown[];
  [ERRORS_KEY]?: ApiErrorCode[];
}

/** The error answers of an operation, one per status, each with the one error shape. */
function errorResponses(codes: ApiErrorCode[]) {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, of]) => [
        String(status),
        {
          description: of.map((code) => `${code}: ${MEANING[code]}`).join('. '),
          ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
          content: { 'application/json': { schema: { $ref: ERROR_BODY_REF } } },
        },
      ]),
  );
}

/** The whole document: the error body schema once, and each operation's error answers. */
const transformObject: SwaggerTransformObject = (documentObject) => {
  if (!('openapiObject' in documentObject)) throw new Error('expected an OpenAPI 3 document');
  const document = documentObject.openapiObject as {
    components?: { schemas?: Record<string, unknown> };
    paths?: Record<string, Record<string, Operation>>;
  };
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ErrorBody: errorBodyJsonSchema },
  };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const codes = operation[ERRORS_KEY] ?? [];
      delete operation[ERRORS_KEY];
      operation.responses = { ...operation.responses, ...errorResponses(codes) };
      if (codes.includes('PRECONDITION_REQUIRED')) {
        operation.parameters = [...(operation.parameters ?? []), ifMatchParameter];
      }
    }
  }
  return documentObject.openapiObject;
};

/**
 * The OpenAPI document generated from the route schemas, at /api/openapi.json and /api/docs:
 * every operation with its operationId and summary (declared by its route), its security and its
 * error answers (added here, from the route's access, shape and declared `errors`).
 */
export default fp(
  async (app) => {
    await app.register(fastifySwagger, {
      openapi: {
        info: {
          title: 'IPFE OAM API',
          description:
            'Configuration of an IP Front End. Log in with POST /api/session; send the csrfToken as x-csrf-token and the ETag as If-Match on every change. Scripts may send an API token as Authorization: Bearer instead (no CSRF header). Every error answers the ErrorBody shape.',
          version: '0.1.0',
        },
        servers: [{ url: '/', description: 'The OAM that serves this document' }],
        components: {
          securitySchemes: {
            sessionCookie: {
              type: 'apiKey',
              in: 'cookie',
              name: SESSION_COOKIE,
              description: 'The session that POST /api/session sets (HttpOnly, SameSite=Strict)',
            },
            csrfToken: {
              type: 'apiKey',
              in: 'header',
              name: 'x-csrf-token',
              description:
                'The csrfToken that POST /api/session (and GET /api/session) answers; every change sends it beside the session cookie',
            },
            apiToken: {
              type: 'http',
              scheme: 'bearer',
              description:
                "An API token (ipfe_…) from POST /api/users/me/tokens, as Authorization: Bearer; it acts with its user's role, needs no CSRF header, and is refused beside a session cookie",
            },
          },
        },
      },
      transform,
      transformObject,
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });
    app.get(
      '/api/openapi.json',
      { config: { access: 'public' }, schema: { hide: true } },
      async () => app.swagger(),
    );
  },
  { name: 'openapi' },
);
