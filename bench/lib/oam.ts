/** A logged-in OAM API client over HTTP (cookie session, CSRF token, If-Match on edits). */
export interface Oam {
  base: string;
  cookie: string;
  csrfToken: string;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
  /** GET the entity for its ETag, then PUT it. */
  edit(path: string, body: unknown): Promise<Response>;
}

export async function login(base: string, username: string, password: string): Promise<Oam> {
  const response = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw new Error(`login: ${response.status} ${await response.text()}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  const headers = { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
  const send = (method: string, path: string, body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
  return {
    base,
    cookie,
    csrfToken,
    get: (path) => fetch(`${base}${path}`, { headers: { cookie } }),
    post: (path, body) => send('POST', path, body),
    async edit(path, body) {
      const current = await fetch(`${base}${path}`, { headers: { cookie } });
      await current.arrayBuffer();
      return send('PUT', path, body, { 'if-match': current.headers.get('etag') ?? '' });
    },
  };
}

/** Throws with the answer's body unless it is a 2xx. */
export async function ok(response: Promise<Response> | Response, what: string): Promise<Response> {
  const r = await response;
  if (!r.ok) throw new Error(`${what}: ${r.status} ${(await r.text()).slice(0, 500)}`);
  return r;
}

/**
 * The 32 × 32 configuration of the API and GUI benchmarks: IPFE A1/A2, one XSI network, 32
 * application servers, 32 Least Load Target Sets each listing all 32 (lists may be identical or
 * disjoint, and 32 disjoint lists of 32 would need 1,024 servers of the 64 allowed).
 */
export async function seed32x32(oam: Oam, prefix: string) {
  await ok(
    oam.edit('/api/options', {
      ipfe: { A1: { address: `${prefix}.0.11` }, A2: { address: `${prefix}.0.12` } },
    }),
    'options',
  );
  await ok(oam.post('/api/xsi-networks', { name: 'xsi', cidr: `${prefix}.0.0/16` }), 'xsi');
  const servers = Array.from({ length: 32 }, (_, i) => `${prefix}.1.${i + 1}`);
  for (const [i, address] of servers.entries())
    await ok(oam.post('/api/app-servers', { name: `mp${i + 1}`, addresses: [address] }), 'server');
  for (let n = 1; n <= 32; n++) {
    await ok(
      oam.post('/api/target-sets', {
        family: 'ipv4',
        algorithm: 'leastLoad',
        primary: { address: `${prefix}.2.${n}`, activeIpfe: n % 2 ? 'A1' : 'A2' },
        servers: servers.map((address, i) => ({
          address,
          weight: 100 + i,
          description: `server ${i + 1}`,
        })),
      }),
      `target set ${n}`,
    );
  }
}
