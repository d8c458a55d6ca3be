import type { ErrorBody } from '@ipfe/schema';
import { CliError } from './errors.ts';

export interface Connection {
  url: string;
  token: string;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is with this content type instead of JSON. */
  raw?: { text: string; contentType: string };
  headers?: Record<string, string>;
  /** Statuses answered to the caller rather than thrown (409, say). */
  accept?: number[];
}

/** The API's own words for a refusal: its message, and each field it names. */
export function refusalOf(status: number, body: unknown): string {
  const error = (body as Partial<ErrorBody> | null)?.error;
  if (!error || typeof error.message !== 'string') return `the OAM answered HTTP ${status}`;
  const fields = (error.fields ?? []).filter((f) => !error.message.includes(f.message));
  const detail = fields.map((f) => `${f.path}: ${f.message}`).join('; ');
  return detail ? `${error.message} (${detail})` : error.message;
}

/** The OAM's API, as the token's user: every request carries `Authorization: Bearer`. */
export class OamClient {
  constructor(private readonly connection: Connection) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const url = new URL(path, this.connection.url);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.connection.token}`,
      accept: 'application/json',
      ...options.headers,
    };
    let body: string | undefined;
    if (options.raw) {
      headers['content-type'] = options.raw.contentType;
      body = options.raw.text;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach the OAM at ${this.connection.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
      );
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new CliError(
          `the OAM answered HTTP ${response.status} with JSON that does not parse`,
        );
      }
    }
    if (response.ok || options.accept?.includes(response.status)) {
      return { status: response.status, headers: response.headers, body: parsed as T };
    }
    if (response.status === 401) {
      throw new CliError(`${refusalOf(response.status, parsed)} [${this.connection.url}]`);
    }
    throw new CliError(refusalOf(response.status, parsed));
  }
}
