import { Agent, request } from 'undici';

export interface AgentClient {
  /** The scheme agents are reached with: https when the OAM was given the agents' CA. */
  readonly scheme: 'http' | 'https';
  call(
    method: 'GET' | 'PUT',
    url: string,
    options: { token: string; body?: string; timeoutMs: number },
  ): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/**
 * HTTP(S) to the agents' control API. With a CA, the agents' certificates are verified against it
 * (and only it); without, the agents are spoken to in plain HTTP on a trusted network.
 */
export function createAgentClient(tls: { ca?: string } = {}): AgentClient {
  const dispatcher = new Agent({
    connect: tls.ca ? { ca: tls.ca, rejectUnauthorized: true } : {},
    keepAliveTimeout: 4_000,
  });
  return {
    scheme: tls.ca ? 'https' : 'http',
    async call(method, url, { token, body, timeoutMs }) {
      const response = await request(url, {
        method,
        dispatcher,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.statusCode, text: await response.body.text() };
    },
    close: () => dispatcher.close(),
  };
}
