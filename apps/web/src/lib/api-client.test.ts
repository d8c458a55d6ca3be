import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, setCsrfToken, setUnauthenticatedHandler } from './api-client';
import { latestCommit, resetCommits } from './commits';

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
  setUnauthenticatedHandler(null);
});

function stubFetch(response: Response) {
  const fetchMock = vi.fn(async () => response);
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const headersOf = (mock: ReturnType<typeof stubFetch>) =>
  (mock.mock.calls[0] as unknown as [string, RequestInit])[1].headers as Record<string, string>;

describe('api client', () => {
  it('sends the CSRF token and If-Match on a change, and reads ETag and revision', async () => {
    const fetchMock = stubFetch(
      new Response('{"name":"x"}', {
        status: 200,
        headers: { etag: '"e2"', 'x-ipfe-revision': '12' },
      }),
    );
    setCsrfToken('token-1');
    const result = await api.put('/api/xsi-networks/x', { cidr: '10.0.0.0/8' }, '"e1"');
    expect(headersOf(fetchMock)).toMatchObject({
      'x-csrf-token': 'token-1',
      'if-match': '"e1"',
      'content-type': 'application/json',
    });
    expect(result).toEqual({ data: { name: 'x' }, etag: '"e2"', revision: 12 });
  });

  it('hands the revision of a commit to the push progress, and nothing for a read', async () => {
    resetCommits();
    stubFetch(new Response('{}', { status: 200, headers: { 'x-ipfe-revision': '3' } }));
    await api.get('/api/revisions/3');
    expect(latestCommit()).toBeNull();
    stubFetch(new Response(null, { status: 204, headers: { 'x-ipfe-revision': '14' } }));
    await api.delete('/api/target-sets/2', '"e1"');
    expect(latestCommit()?.revision).toBe(14);
    resetCommits();
  });

  it('reads a save that changed nothing: no revision, and no push to follow', async () => {
    resetCommits();
    stubFetch(
      new Response('{"name":"x"}', {
        status: 200,
        headers: { etag: '"e1"', 'x-ipfe-unchanged': 'true' },
      }),
    );
    const result = await api.put('/api/xsi-networks/x', { cidr: '10.0.0.0/8' }, '"e1"');
    expect(result).toEqual({ data: { name: 'x' }, etag: '"e1"', revision: null, unchanged: true });
    expect(latestCommit()).toBeNull();
  });

  it('does not send the CSRF token on a read', async () => {
    const fetchMock = stubFetch(new Response('{}', { status: 200 }));
    setCsrfToken('token-1');
    await api.get('/api/options');
    expect(headersOf(fetchMock)['x-csrf-token']).toBeUndefined();
  });

  it('turns the API error shape into an ApiError with its fields and extras', async () => {
    stubFetch(
      new Response(
        JSON.stringify({
          error: {
            code: 'PRECONDITION_FAILED',
            message: 'stale',
            fields: [{ path: 'a', message: 'b' }],
          },
          current: { n: 1 },
        }),
        { status: 412, headers: { etag: '"now"' } },
      ),
    );
    const error = (await api.put('/api/x', {}, '"old"').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 412,
      code: 'PRECONDITION_FAILED',
      message: 'stale',
      fields: [{ path: 'a', message: 'b' }],
      body: { current: { n: 1 } },
      etag: '"now"',
    });
  });

  it('reports an expired session (401 on anything but the session itself)', async () => {
    const onExpired = vi.fn();
    setUnauthenticatedHandler(onExpired);
    stubFetch(
      new Response('{"error":{"code":"UNAUTHENTICATED","message":"m","fields":[]}}', {
        status: 401,
      }),
    );
    await expect(api.get('/api/options')).rejects.toBeInstanceOf(ApiError);
    expect(onExpired).toHaveBeenCalledTimes(1);
    stubFetch(
      new Response('{"error":{"code":"UNAUTHENTICATED","message":"m","fields":[]}}', {
        status: 401,
      }),
    );
    await expect(api.get('/api/session')).rejects.toBeInstanceOf(ApiError);
    expect(onExpired).toHaveBeenCalledTimes(1);
  });

  it('says plainly when the server cannot be reached', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(api.get('/api/options')).rejects.toMatchObject({ code: 'NETWORK' });
  });
});
