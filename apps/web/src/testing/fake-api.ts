import type {
  AgentStatus,
  AppServer,
  MeasurementsView,
  IpfeSlot,
  OamMember,
  Options,
  PeerNodeGroup,
  RevisionDiff,
  RevisionInfo,
  XsiNetwork,
} from '@ipfe/schema';
import { vi } from 'vitest';
import type { Role } from '@/lib/auth';
import type { TargetSetView } from '@/features/target-sets/api/get-target-sets';
import type { IpfeView } from '@/features/ipfe-status/api/get-ipfe';
import type { AlarmsView } from '@/features/alarms/api/get-alarms';
import type { AuditEntry } from '@/features/audit/api/get-audit';
import { appServers, ipfeView, options, targetSet1, xsiNetworks } from './fixtures';

export interface FakeState {
  user: { name: string; role: Role } | null;
  /** The password every user has in this fake. */
  password: string;
  options: Options;
  xsiNetworks: XsiNetwork[];
  appServers: AppServer[];
  peerNodeGroups: PeerNodeGroup[];
  targetSets: TargetSetView[];
  /** GET /api/ipfe, and each agent's status (GET /api/ipfe/:slot/status). */
  ipfe: IpfeView;
  agentStatus: Partial<Record<IpfeSlot, AgentStatus | null>>;
  alarms: AlarmsView;
  /** GET /api/measurements: by default no agent reports any. */
  measurements: MeasurementsView;
  /** GET /api/oams: by default one OAM, this one, leading (as on SQLite). */
  oams: OamMember[];
  audit: AuditEntry[];
  /** The revision log, newest first. */
  revisions: RevisionInfo[];
  /**
   * What GET /api/revisions/:to/diff?against=:from answers, by "from→to"; a diff not here is
   * answered 404 (as for a revision that does not exist).
   */
  diffs: Record<string, RevisionDiff>;
  /** Diffs are answered once this settles (a test sees what is shown meanwhile). */
  diffsAnswered: Promise<unknown>;
  /** Requests as the fake saw them: "GET /api/options". */
  log: string[];
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const unauthenticated = () =>
  json(401, {
    error: {
      code: 'UNAUTHENTICATED',
      message: 'Log in first (your session may have expired)',
      fields: [],
    },
  });

/**
 * A small stand-in for the OAM API, enough for the pages to load: sessions, and reads of every
 * collection. Changes are left to the e2e suite, which runs the real API.
 */
export function installFakeApi(initial: Partial<FakeState> = {}) {
  const state: FakeState = {
    user: { name: 'olga', role: 'operator' },
    password: 'secret123',
    options,
    xsiNetworks: xsiNetworks.map((n) => ({ ...n, warnings: [] })),
    appServers: appServers.map((s) => ({ ...s, warnings: [] })),
    peerNodeGroups: [],
    targetSets: [targetSet1],
    ipfe: ipfeView(),
    agentStatus: {},
    alarms: { active: [], history: [] },
    measurements: {
      windowSeconds: 3600,
      stepSeconds: 10,
      accounting: true,
      reporting: [],
      targetSets: [],
    },
    oams: [
      {
        id: 'oam-1',
        address: '127.0.0.1:8080',
        role: 'leader',
        startedAt: '2026-01-01T00:00:00.000Z',
        lastSeen: '2026-01-01T00:00:00.000Z',
        self: true,
        present: true,
      },
    ],
    audit: [],
    revisions: [],
    diffs: {},
    diffsAnswered: Promise.resolve(),
    log: [],
    ...initial,
  };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://oam.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    state.log.push(`${method} ${path}`);
    if (path === '/api/session') {
      if (method === 'POST') {
        const body = JSON.parse(String(init.body)) as { username: string; password: string };
        if (body.password !== state.password) {
          return json(401, {
            error: { code: 'UNAUTHENTICATED', message: 'Wrong user name or password', fields: [] },
          });
        }
        state.user = {
          name: body.username,
          role: body.username === 'vera' ? 'viewer' : 'operator',
        };
        return json(200, { user: state.user, csrfToken: 'csrf-1' });
      }
      if (method === 'DELETE') {
        state.user = null;
        return json(204, null);
      }
      return json(200, state.user ? { user: state.user, csrfToken: 'csrf-1' } : { user: null });
    }
    if (!state.user) return unauthenticated();
    if (method !== 'GET')
      return json(405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'fake', fields: [] } });
    const lists: Record<string, unknown[]> = {
      '/api/xsi-networks': state.xsiNetworks,
      '/api/app-servers': state.appServers,
      '/api/peer-node-groups': state.peerNodeGroups,
      '/api/target-sets': state.targetSets,
    };
    if (path === '/api/options') return json(200, state.options, { etag: '"options-1"' });
    if (path === '/api/options/snmp-traps')
      return json(
        200,
        { engineId: '80007ed9050102030405060708', destinations: [] },
        { etag: '"snmp-1"' },
      );
    if (lists[path]) return json(200, { items: lists[path] });
    if (path === '/api/oams') return json(200, { items: state.oams });
    const ts = /^\/api\/target-sets\/(\d+)$/.exec(path);
    if (ts) {
      const found = state.targetSets.find((t) => t.number === Number(ts[1]));
      return found
        ? json(200, found, { etag: '"ts-1"' })
        : json(404, {
            error: { code: 'NOT_FOUND', message: `Target Set ${ts[1]} does not exist`, fields: [] },
          });
    }
    if (path === '/api/revisions')
      return json(200, { items: state.revisions, total: state.revisions.length });
    const diff = /^\/api\/revisions\/(\d+)\/diff$/.exec(path);
    if (diff) {
      const key = `${url.searchParams.get('against')}→${diff[1]}`;
      await state.diffsAnswered;
      return Object.hasOwn(state.diffs, key)
        ? json(200, state.diffs[key])
        : json(404, {
            error: { code: 'NOT_FOUND', message: `No diff ${key} in this fake`, fields: [] },
          });
    }
    const revision = /^\/api\/revisions\/(\d+)$/.exec(path);
    if (revision) {
      return json(404, {
        error: { code: 'NOT_FOUND', message: `Revision ${revision[1]} does not exist`, fields: [] },
      });
    }
    if (path === '/api/ipfe') return json(200, state.ipfe);
    const agent = /^\/api\/ipfe\/(A1|A2|B1|B2)\/status$/.exec(path);
    if (agent) return json(200, { status: state.agentStatus[agent[1] as IpfeSlot] ?? null });
    if (path === '/api/alarms') return json(200, state.alarms);
    if (path === '/api/measurements') return json(200, state.measurements);
    if (path === '/api/audit') {
      if (state.user.role !== 'admin') {
        return json(403, {
          error: { code: 'FORBIDDEN', message: 'This needs the admin role', fields: [] },
        });
      }
      const before = Number(url.searchParams.get('before') ?? Infinity);
      const limit = Number(url.searchParams.get('limit') ?? 200);
      return json(200, { items: state.audit.filter((e) => e.id < before).slice(0, limit) });
    }
    return json(404, {
      error: { code: 'NOT_FOUND', message: `No route ${method} ${path}`, fields: [] },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    state,
    fetchMock,
    /** The session ends on the server side: every later request answers 401. */
    expireSession: () => {
      state.user = null;
    },
  };
}
