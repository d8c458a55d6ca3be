import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AgentStatus, IpfeSlot } from '@ipfe/schema';
import { api } from '@/lib/api-client';

/**
 * GET /api/ipfe: per IPFE slot, the push state of the configuration and what its agent reported
 * last. (The API declares this shape in its route, not in @ipfe/schema, so it is spelled out here.)
 */
export type SyncState = 'synced' | 'pending' | 'rejected' | 'unreachable' | 'not configured';

export interface SlotAlarm {
  code: number;
  name: string;
  severity: string;
  /** What the alarm is on (null when it is on the IPFE as a whole). */
  targetSet: number | null;
  server: string | null;
  text: string;
}

export interface IpfeSlotView {
  slot: IpfeSlot;
  configured: boolean;
  address: string | null;
  agentPort: number | null;
  state: SyncState;
  desiredRevision: number | null;
  appliedRevision: number | null;
  rejected: { revision: number; error: string } | null;
  lastError: string | null;
  lastContact: string | null;
  owned: { tsa: string; targetSet: number; role: 'active' | 'standby' }[];
  mateAlive: boolean | null;
  /** The agent's data path, the protocols it forwards and its open connections; null before it reports. */
  dataplane: AgentStatus['dataplane'] | null;
  forwards: AgentStatus['forwards'] | null;
  connections: number | null;
  alarms: SlotAlarm[];
}

export interface IpfeView {
  latestRevision: number;
  items: IpfeSlotView[];
}

/** Live status refreshes at least this often (the API polls the agents every second). */
export const LIVE_INTERVAL_MS = 2_000;

export const ipfeQueryKey = ['ipfe'] as const;

export const getIpfe = (signal?: AbortSignal) => api.get<IpfeView>('/api/ipfe', signal);

export const getIpfeQueryOptions = () =>
  queryOptions({
    queryKey: ipfeQueryKey,
    queryFn: async ({ signal }) => (await getIpfe(signal)).data,
    staleTime: 0,
    // Polling pauses while the tab is hidden (TanStack's default): a forgotten background tab
    // does not keep its session alive, and the badge catches up when the tab shows again.
    refetchInterval: LIVE_INTERVAL_MS,
  });

/** `interval`: poll faster while a push is being followed. */
export const useIpfe = ({ interval = LIVE_INTERVAL_MS }: { interval?: number } = {}) =>
  useQuery({ ...getIpfeQueryOptions(), refetchInterval: interval });
