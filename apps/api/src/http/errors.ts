import { issueText, type ApiErrorCode, type ErrorBody, type FieldError } from '@ipfe/schema';

export type { ErrorBody };

/** The HTTP status of each error code (API_ERROR_CODES of @ipfe/schema). */
export const ERROR_STATUS = {
  VALIDATION: 400,
  INVALID_JSON: 400,
  UNAUTHENTICATED: 401,
  CSRF: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  IN_USE: 409,
  LAST_ADMIN: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PRECONDITION_REQUIRED: 428,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const satisfies Record<ApiErrorCode, number>;

export type ErrorCode = ApiErrorCode;

/** An error meant for the client: its message and fields are safe to show. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields: FieldError[] = [],
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, fields: this.fields },
      ...this.extra,
    };
  }
}

/** "<field as the GUI names it>: <message>", and how many more problems there are. */
export function summaryOf(fields: FieldError[]): string {
  const first = fields[0];
  if (!first) return 'Invalid request';
  const more = fields.length - 1;
  const rest = more === 0 ? '' : ` (and ${more} more ${more === 1 ? 'problem' : 'problems'})`;
  return `${issueText(first)}${rest}`;
}

export function validationError(fields: FieldError[], message?: string): ApiError {
  return new ApiError('VALIDATION', message ?? summaryOf(fields), fields);
}

export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} does not exist`);
