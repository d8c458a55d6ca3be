import type { ApiErrorCode as SchemaErrorCode, ErrorBody, FieldError } from '@ipfe/schema';
import { noteCommit } from './commits';

/**
 * The one HTTP client of the GUI. It speaks the API's contract: JSON bodies, the CSRF token of the
 * session on every change, If-Match with the entity's ETag on PUT and DELETE, and errors in one
 * shape `{ error: { code, message, fields } }`.
 */

/** A problem of one field, as errors and warnings name it. */
export type FieldIssue = FieldError;

/** The API's codes, and NETWORK: no answer came (or none that was the API's). */
export type ApiErrorCode = SchemaErrorCode | 'NETWORK' | (string & {});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly fields: FieldIssue[] = [],
    /** The rest of the error body, e.g. `current` (the entity as it is now) on 412. */
    readonly body: Record<string, unknown> = {},
    readonly etag: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Versioned<T> {
  data: T;
  etag: string | null;
  /** The revision a commit created (header x-ipfe-revision), when the call committed one. */
  revision: number | null;
  /** The change changed nothing, so nothing was committed (header x-ipfe-unchanged). */
  unchanged?: boolean;
}

let csrfToken: string | null = null;
let onUnauthenticated: (() => void) | null = null;

export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** Called when the API answers 401 to anything but the session itself (the session expired). */
export function setUnauthenticatedHandler(handler: (() => void) | null) {
  onUnauthenticated = handler;
}

interface RequestOptions {
  body?: unknown;
  /** A body sent as it is rather than as JSON (a CSV file), with its content type. */
  text?: { content: string; type: string };
  ifMatch?: string | null;
  signal?: AbortSignal;
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page, say): the status line is all there is.
  }
  const error = (body.error ?? {}) as Partial<ErrorBody['error']>;
  const { error: _error, ...rest } = body;
  return new ApiError(
    response.status,
    error.code ?? `HTTP_${response.status}`,
    error.message ?? `The server answered ${response.status} ${response.statusText}`,
    Array.isArray(error.fields) ? error.fields : [],
    rest,
    response.headers.get('etag'),
  );
}

export async function request<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: RequestOptions = {},
): Promise<Versioned<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.text) headers['content-type'] = options.text.type;
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body:
        options.text?.content ??
        (options.body === undefined ? undefined : JSON.stringify(options.body)),
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The OAM server cannot be reached; check that it is running');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && !url.startsWith('/api/session')) onUnauthenticated?.();
    throw error;
  }
  const text = response.status === 204 ? '' : await response.text();
  const revision = response.headers.get('x-ipfe-revision');
  // A commit: the shell follows its push to the IPFEs.
  if (method !== 'GET' && revision !== null) noteCommit(Number(revision));
  return {
    data: (text ? JSON.parse(text) : null) as T,
    etag: response.headers.get('etag'),
    revision: revision === null ? null : Number(revision),
    ...(response.headers.get('x-ipfe-unchanged') === 'true' ? { unchanged: true } : {}),
  };
}

export const api = {
  get: <T>(url: string, signal?: AbortSignal) => request<T>('GET', url, { signal }),
  post: <T>(url: string, body?: unknown) => request<T>('POST', url, { body }),
  postText: <T>(url: string, content: string, type: string) =>
    request<T>('POST', url, { text: { content, type } }),
  put: <T>(url: string, body: unknown, ifMatch: string | null) =>
    request<T>('PUT', url, { body, ifMatch }),
  delete: (url: string, ifMatch: string | null) => request<null>('DELETE', url, { ifMatch }),
};

/** "A message (path)" lines of an error, for summaries. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
