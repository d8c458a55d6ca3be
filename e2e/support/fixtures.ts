import AxeBuilder from '@axe-core/playwright';
import { expect, request, test as base, type APIRequestContext, type Page } from '@playwright/test';
import { authFile } from './env';

type Json = Record<string, unknown>;

/**
 * The configuration API as an admin script uses it (to set the stage for a flow, and to clean up
 * after it): CSRF token, ETags, and a record of what was created, deleted again at the end.
 */
export class ConfigApi {
  private created: string[] = [];
  private constructor(
    private readonly http: APIRequestContext,
    private readonly csrf: string,
  ) {}

  static async open(baseURL: string) {
    const http = await request.newContext({ baseURL, storageState: authFile('admin') });
    const session = await http.get('/api/session');
    expect(session.ok(), 'the admin session of the global setup').toBe(true);
    const { csrfToken } = (await session.json()) as { csrfToken: string };
    return new ConfigApi(http, csrfToken);
  }

  async get(path: string) {
    const response = await this.http.get(path);
    expect(response.ok(), `GET ${path}: ${await response.text()}`).toBe(true);
    return { body: (await response.json()) as Json, etag: response.headers().etag ?? '' };
  }

  async post(path: string, data: Json, key?: string | number) {
    const response = await this.http.post(path, { data, headers: { 'x-csrf-token': this.csrf } });
    expect(response.ok(), `POST ${path}: ${await response.text()}`).toBe(true);
    const body = (await response.json()) as Json;
    const id = key ?? body.name ?? body.number;
    if (id !== undefined) this.created.push(`${path}/${encodeURIComponent(String(id))}`);
    return body;
  }

  /** Changes an entity as someone else would: read its ETag, then write. */
  async put(path: string, change: (current: Json) => Json) {
    const { body, etag } = await this.get(path);
    const response = await this.http.put(path, {
      data: change(body),
      headers: { 'x-csrf-token': this.csrf, 'if-match': etag },
    });
    expect(response.ok(), `PUT ${path}: ${await response.text()}`).toBe(true);
    return (await response.json()) as Json;
  }

  async remove(path: string) {
    const current = await this.http.get(path);
    if (current.status() === 404) return;
    const response = await this.http.delete(path, {
      headers: { 'x-csrf-token': this.csrf, 'if-match': current.headers().etag ?? '' },
    });
    expect([204, 404], `DELETE ${path}: ${await response.text()}`).toContain(response.status());
  }

  /** Forgets an entity the flow itself deleted or will delete. */
  track(path: string) {
    this.created.push(path);
  }

  /** IPFE A1 and A2 configured (as the admin flow leaves them); B1 and B2 left as they are. */
  async ensureIpfe() {
    const { body } = await this.get('/api/options');
    const ipfe = body.ipfe as Record<string, unknown>;
    if (ipfe.A1 && ipfe.A2) return;
    await this.put('/api/options', (options) => {
      const { ...rest } = options;
      return {
        ...rest,
        ipfe: { ...ipfe, A1: { address: '127.31.0.1' }, A2: { address: '127.31.0.2' } },
      };
    });
  }

  /**
   * A lab of its own for one flow: XSI networks 10.N.1.0/24 and fd00:N::/64, and three
   * application servers `sN-mp1..3` with one address of each family.
   */
  async lab(n: number) {
    await this.ensureIpfe();
    await this.post('/api/xsi-networks', { name: `e2e-${n}-v4`, cidr: `10.${n}.1.0/24` });
    await this.post('/api/xsi-networks', { name: `e2e-${n}-v6`, cidr: `fd00:${n}::/64` });
    const servers = [1, 2, 3].map((i) => ({
      name: `s${n}-mp${i}`,
      v4: `10.${n}.1.1${i}`,
      v6: `fd00:${n}::1${i}`,
    }));
    for (const s of servers)
      await this.post('/api/app-servers', { name: s.name, addresses: [s.v4, s.v6] });
    return {
      servers,
      tsa4: `10.${n}.1.100`,
      tsa6: `fd00:${n}::100`,
      /** A Target Set of the lab, straight through the API. */
      targetSet: (body: Json) => this.post('/api/target-sets', body),
    };
  }

  async cleanup() {
    for (const path of this.created.reverse()) await this.remove(path);
    this.created = [];
    await this.http.dispose();
  }
}

export const test = base.extend<{ api: ConfigApi }>({
  api: async ({ baseURL }, use) => {
    const api = await ConfigApi.open(baseURL!);
    await use(api);
    await api.cleanup();
  },
});

export { expect };

/** An axe scan of the page as it is now: WCAG 2 A and AA, no violation allowed. */
export async function expectAccessible(page: Page, what: string) {
  // @axe-core/playwright types `page` from its own playwright-core; the API it uses is the same.
  type AxePage = ConstructorParameters<typeof AxeBuilder>[0]['page'];
  const results = await new AxeBuilder({ page: page as unknown as AxePage })
    .withTags(['wcag2a', 'wcag2aa'])
    .analyze();
  const summary = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`,
  );
  expect(summary, `axe violations on ${what}`).toEqual([]);
}

/** Logs in through the login page. */
export async function logIn(page: Page, name: string, password: string) {
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
