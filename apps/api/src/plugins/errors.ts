import type { FastifyError, FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';
import { fieldErrorsOf } from '@ipfe/schema';
import type { ZodType } from 'zod';
import { storeUnavailableReason } from '../store/unavailable.ts';
import { ApiError, validationError, type ErrorCode } from '../http/errors.ts';

/** Request validation with the shared schemas; failures carry field paths in our error shape. */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success
      ? { value: result.data }
      : { error: validationError(fieldErrorsOf(result.error)) };
  };

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'INVALID_JSON',
    'The Content-Length does not match the body',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    'INVALID_JSON',
    'The body is empty but Content-Type is application/json',
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: ['INVALID_JSON', 'The body is not valid JSON'],
};

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** Turns anything thrown into the one error shape; a 5xx never shows internals. */
export function toApiError(err: FastifyError | Error): ApiError {
  if (err instanceof ApiError) return err;
  const fastifyError = err as FastifyError;
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) return new ApiError(known[0], known[1]);
  if (err instanceof SyntaxError) return new ApiError('INVALID_JSON', 'The body is not valid JSON');
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new ApiError(STATUS_CODES[status] ?? 'VALIDATION', err.message);
  }
  const unavailable = storeUnavailableReason(err);
  if (unavailable) return new ApiError('UNAVAILABLE', unavailable, [], {}, { 'retry-after': '2' });
  return new ApiError('INTERNAL', 'Internal error; the server log has the details');
}

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      const apiError = toApiError(err);
      if (apiError.code === 'INTERNAL') request.log.error({ err }, 'request failed');
      else if (apiError.code === 'UNAVAILABLE' && !(err instanceof ApiError))
        request.log.warn({ err }, 'store unavailable');
      return reply.code(apiError.statusCode).headers(apiError.headers).send(apiError.toBody());
    });
  },
  { name: 'errors' },
);
