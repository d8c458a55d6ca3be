import type { Generated } from 'kysely';

/** The tables of the OAM's store, as both engines hold them (migrations/ and migrations/postgres/). */
export interface Schema {
  revisions: {
    number: number;
    author: string;
    created_at: string;
    summary: string;
    sha256: string;
    document: string;
  };
  users: {
    name: string;
    role: 'admin' | 'operator' | 'viewer';
    password_hash: string;
    session_epoch: Generated<number>;
    created_at: string;
    updated_at: string;
  };
  sessions: { id: string; data: string; expires_at: number };
  agent_sync: {
    slot: 'A1' | 'A2' | 'B1' | 'B2';
    desired_revision: number | null;
    applied_revision: number | null;
    applied_sha256: string | null;
    rejected_revision: number | null;
    rejected_error: string | null;
    last_error: string | null;
    last_contact: string | null;
    state: 'synced' | 'pending' | 'rejected' | 'unreachable';
  };
  alarms: {
    id: Generated<number>;
    slot: string;
    code: number;
    name: string;
    severity: string;
    target_set: number | null;
    server: string | null;
    text: string;
    raised_at: string;
    cleared_at: string | null;
  };
  audit: {
    id: Generated<number>;
    at: string;
    user: string | null;
    address: string;
    action: string;
    target: string;
    status: number;
    detail: string | null;
  };
  api_tokens: {
    id: Generated<number>;
    user: string;
    name: string;
    secret_hash: string;
    created_at: string;
    last_used_at: string | null;
    revoked_at: string | null;
  };
  snmp_trap_destinations: {
    position: number;
    host: string;
    port: number;
    version: 'v2c' | 'v3';
    community: string | null;
    user: string | null;
    security_level: string | null;
    auth_protocol: string | null;
    auth_key: string | null;
    priv_protocol: string | null;
    priv_key: string | null;
  };
  snmp_trap_settings: { id: number; engine_id: string; generation: number };
  trap_outbox: { id: Generated<number>; event: string; created_at: string };
  oam_nodes: {
    id: string;
    address: string;
    role: 'leader' | 'follower';
    started_at: string;
    last_seen: number;
  };
  login_limits: { key: string; points: number; expire: number | null };
  cluster_secrets: { name: string; value: string };
}
