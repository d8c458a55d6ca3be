import { z } from 'zod';
import { IPFE_SLOTS } from './limits.ts';
import { appServerSchema, peerNodeGroupSchema, xsiNetworkSchema } from './network.ts';
import { derivedTargetSetSchema } from './derive.ts';
import { agentStatusSchema, dataPathSchema, forwardedProtocolSchema } from './agent-status.ts';
import type { FieldError } from './zod-issues.ts';

/*
 * What the OAM API answers: one schema per answer. The routes declare them (and so the OpenAPI
 * document shows them); the GUI takes its types from them with z.infer.
 */

/** A problem of one field: `path` is the field's dot path within the entity. */
export const fieldErrorSchema = z.object({
  path: z.string(),
  message: z.string(),
}) satisfies z.ZodType<FieldError>;

const warnings = { warnings: z.array(fieldErrorSchema) };

/** Every error code the API answers with. */
export const API_ERROR_CODES = [
  'VALIDATION',
  'INVALID_JSON',
  'UNAUTHENTICATED',
  'CSRF',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'IN_USE',
  'LAST_ADMIN',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'PRECONDITION_REQUIRED',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The one shape of every error answer; some carry more beside `error` (412: `current`). */
export const errorBodySchema = z.looseObject({
  error: z.object({
    code: z.enum(API_ERROR_CODES),
    message: z.string(),
    fields: z.array(fieldErrorSchema),
  }),
});
export type ErrorBody = z.output<typeof errorBodySchema>;

/** The answer of a list: `{ items }`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
export type ListOf<T> = { items: T[] };

// ---- collections (GET/POST/PUT /api/xsi-networks, app-servers, peer-node-groups, target-sets)

export const xsiNetworkViewSchema = xsiNetworkSchema.extend(warnings);
export const appServerViewSchema = appServerSchema.extend(warnings);
export const peerNodeGroupViewSchema = peerNodeGroupSchema.extend(warnings);
export const targetSetViewSchema = derivedTargetSetSchema.extend({
  ...warnings,
  /** The IPFE serving the primary TSA now, as the agents report; null when none reports it. */
  owner: z.enum(IPFE_SLOTS).nullable(),
  /** Servers able to take new connections out of all listed, from the serving agent. */
  activeBindings: z.object({ available: z.number(), total: z.number() }).nullable(),
  /** Its protocols that the serving IPFE does not forward; null when none reports it. */
  notForwarded: z.array(forwardedProtocolSchema).nullable(),
  /**
   * Why no IPFE serves it now, as the agents report (an enabled Target Set only); null when one
   * does, or while no agent has reported.
   */
  notServed: z.string().nullable(),
});

export type XsiNetworkView = z.output<typeof xsiNetworkViewSchema>;
export type AppServerView = z.output<typeof appServerViewSchema>;
export type PeerNodeGroupView = z.output<typeof peerNodeGroupViewSchema>;
export type TargetSetView = z.output<typeof targetSetViewSchema>;

// ---- alarms (GET /api/alarms) and the IPFE slots (GET /api/ipfe)

/** One alarm as the OAM keeps it (raised by an agent, or by the OAM itself: 5101). */
export const alarmRecordSchema = z.object({
  id: z.number(),
  slot: z.string(),
  code: z.number(),
  name: z.string(),
  severity: z.string(),
  targetSet: z.number().nullable(),
  server: z.string().nullable(),
  text: z.string(),
  raisedAt: z.string(),
  clearedAt: z.string().nullable(),
});
export type AlarmRecord = z.output<typeof alarmRecordSchema>;

export const alarmsViewSchema = z.object({
  active: z.array(alarmRecordSchema),
  history: z.array(alarmRecordSchema),
});
export type AlarmsView = z.output<typeof alarmsViewSchema>;

/** An active alarm as a slot's view gives it: what it is and what it is on. */
export const slotAlarmSchema = alarmRecordSchema.pick({
  code: true,
  name: true,
  severity: true,
  targetSet: true,
  server: true,
  text: true,
});
export type SlotAlarm = z.output<typeof slotAlarmSchema>;

/** Where the push of the desired revision to one agent stands. */
export const SYNC_STATES = ['synced', 'pending', 'rejected', 'unreachable'] as const;
export type SyncState = (typeof SYNC_STATES)[number];

/** What the OAM knows of one IPFE slot: its push state and what its agent reported last. */
export const ipfeSlotSyncSchema = z.object({
  slot: z.enum(IPFE_SLOTS),
  configured: z.boolean(),
  address: z.string().nullable(),
  agentPort: z.number().nullable(),
  state: z.enum([...SYNC_STATES, 'not configured']),
  desiredRevision: z.number().nullable(),
  appliedRevision: z.number().nullable(),
  rejected: z.object({ revision: z.number(), error: z.string() }).nullable(),
  lastError: z.string().nullable(),
  lastContact: z.string().nullable(),
  owned: z.array(
    z.object({ tsa: z.string(), targetSet: z.number(), role: z.enum(['active', 'standby']) }),
  ),
  mateAlive: z.boolean().nullable(),
  /** The agent's data path, the protocols it forwards and its open connections; null before it reports. */
  dataplane: dataPathSchema.nullable(),
  forwards: z.array(forwardedProtocolSchema).nullable(),
  connections: z.number().nullable(),
});
export type IpfeSlotSync = z.output<typeof ipfeSlotSyncSchema>;

export const ipfeSlotViewSchema = ipfeSlotSyncSchema.extend({ alarms: z.array(slotAlarmSchema) });
export type IpfeSlotView = z.output<typeof ipfeSlotViewSchema>;

/** A Target Set Address of an enabled Target Set that no IPFE serves now, and why. */
export const unservedTsaSchema = z.object({
  targetSet: z.number(),
  tsa: z.string(),
  reason: z.string(),
});
export type UnservedTsa = z.output<typeof unservedTsaSchema>;

export const ipfeViewSchema = z.object({
  latestRevision: z.number(),
  items: z.array(ipfeSlotViewSchema),
  /** "Applied" is not "served": the TSAs nobody serves now, whatever every IPFE runs. */
  unserved: z.array(unservedTsaSchema),
});
export type IpfeView = z.output<typeof ipfeViewSchema>;

/** GET /api/ipfe/:slot/status: the agent's status as the OAM last read it (null: none). */
export const agentStatusViewSchema = z.object({ status: agentStatusSchema.nullable() });
export type AgentStatusView = z.output<typeof agentStatusViewSchema>;

// ---- revisions (GET /api/revisions, the diff, rollback)

export const revisionInfoSchema = z.object({
  number: z.number(),
  author: z.string(),
  createdAt: z.string(),
  summary: z.string(),
  sha256: z.string(),
});
export type RevisionInfo = z.output<typeof revisionInfoSchema>;

export const revisionLogSchema = listOf(revisionInfoSchema).extend({ total: z.number() });
export type RevisionLog = z.output<typeof revisionLogSchema>;

/** What changed between two configurations, by the paths of `keyedConfig`. */
export const configDiffSchema = z.object({
  added: z.array(z.object({ path: z.string(), value: z.unknown() })),
  removed: z.array(z.object({ path: z.string(), value: z.unknown() })),
  changed: z.array(z.object({ path: z.string(), old: z.unknown(), new: z.unknown() })),
});
export type ConfigDiff = z.output<typeof configDiffSchema>;

export const revisionDiffSchema = z.object({
  from: z.number(),
  to: z.number(),
  ...configDiffSchema.shape,
});
export type RevisionDiff = z.output<typeof revisionDiffSchema>;

// ---- the audit log (GET /api/audit)

/** One audit entry: a login, a failed login, a logout or a change (done or refused). */
export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  user: z.string().nullable(),
  address: z.string(),
  action: z.string(),
  target: z.string(),
  status: z.number(),
  detail: z.string().nullable(),
});
export type AuditEntry = z.output<typeof auditEntrySchema>;

export const auditPageSchema = listOf(auditEntrySchema);

// ---- users and the session

export const ROLES = ['admin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const userSchema = z.object({
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.output<typeof userSchema>;

export const userListSchema = listOf(userSchema);

export const sessionUserSchema = z.object({ name: z.string(), role: z.enum(ROLES) });
export type SessionUser = z.output<typeof sessionUserSchema>;

/** Who is logged in, with the CSRF token of their login. */
export const sessionViewSchema = z.object({ user: sessionUserSchema, csrfToken: z.string() });
export type SessionView = z.output<typeof sessionViewSchema>;

/** GET /api/session: nobody logged in is an answer too. */
export const sessionAnswerSchema = z.union([sessionViewSchema, z.object({ user: z.null() })]);
export type SessionAnswer = z.output<typeof sessionAnswerSchema>;

// ---- API tokens (GET/POST /api/users/me/tokens, GET /api/tokens)

/** An API token as listed: never its secret. */
export const apiTokenSchema = z.object({
  id: z.number(),
  user: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ApiToken = z.output<typeof apiTokenSchema>;

export const apiTokenListSchema = listOf(apiTokenSchema);

/** The answer to creating a token: the only time its secret is shown. */
export const createdApiTokenSchema = z.object({ token: apiTokenSchema, secret: z.string() });
export type CreatedApiToken = z.output<typeof createdApiTokenSchema>;

// ---- whole-configuration plan (POST /api/config/plan)

/** What committing a config document would change, against which running revision. */
export const configPlanSchema = z.object({
  basedOn: z.number(),
  changes: configDiffSchema,
  problems: z.array(fieldErrorSchema),
});
export type ConfigPlan = z.output<typeof configPlanSchema>;

// ---- the source product's bulk-export CSV (POST /api/import/source-csv/preview)

/** A problem of an imported file: `path` says where ("line 7, column Server1Weighting"). */
export const importProblemSchema = fieldErrorSchema.extend({
  line: z.number().nullable(),
  column: z.string().nullable(),
});
export type ImportProblem = z.output<typeof importProblemSchema>;

/** A column of the file that nothing in the configuration takes: shown, never dropped silently. */
export const notImportedColumnSchema = z.object({
  table: z.string(),
  column: z.string(),
  line: z.number(),
  message: z.string(),
});

/**
 * The two layouts an import reads and an export writes: the source product's own bulk file
 * (positional IpfeOption and IpfeListTsa records, no header) and this OAM's named-column CSV.
 */
export const IMPORT_FILE_FORMATS = ['source', 'named'] as const;
export type ImportFileFormat = (typeof IMPORT_FILE_FORMATS)[number];

/** An application server the file's IP lists need and this OAM lacks, offered for creation. */
export const serverOfferSchema = z.object({
  name: z.string(),
  addresses: z.array(z.string()),
  /** The XSI network that holds each address, in the same order. */
  xsiNetworks: z.array(z.string()),
  lines: z.array(z.number()),
});
export type ServerOffer = z.output<typeof serverOfferSchema>;

/** What importing the file would change against the running revision, and what stops it. */
export const sourceCsvPreviewSchema = z.object({
  basedOn: z.number(),
  /** The layout the file was read in (as asked, or as its first records show). */
  format: z.enum(IMPORT_FILE_FORMATS),
  changes: configDiffSchema,
  /**
   * Changes that undo or overwrite what another operator committed after the revision the file was
   * first previewed against (`since`), each naming the latest such revision and its author.
   */
  overwrites: z.array(z.object({ path: z.string(), revision: z.number(), author: z.string() })),
  problems: z.array(importProblemSchema),
  notImported: z.array(notImportedColumnSchema),
  /**
   * The application servers the file's IP lists name and this OAM lacks, each named after its
   * address on the XSI network that holds it: created with the rest when the import is asked
   * with createServers=true (this preview then shows them among the changes).
   */
  serversToCreate: z.array(serverOfferSchema),
  /** Whether this preview created them (createServers=true). */
  createServers: z.boolean(),
  /** What the operator should know of how the file was read (a layout we chose, a unit). */
  notes: z.array(z.string()),
});
export type SourceCsvPreview = z.output<typeof sourceCsvPreviewSchema>;

// ---- health

export const oamRoleSchema = z.enum(['leader', 'follower']);
export type OamRole = z.output<typeof oamRoleSchema>;

export const healthViewSchema = z.object({
  status: z.literal('ok'),
  revision: z.number(),
  /** The store's engine: the embedded SQLite file, or PostgreSQL shared by a cluster of OAMs. */
  store: z.enum(['sqlite', 'postgres']),
  /** Whether this OAM pushes to the agents, mirrors their alarms and sends the traps. */
  role: oamRoleSchema,
});
export type HealthView = z.output<typeof healthViewSchema>;

// ---- the OAMs of the cluster

export const oamMemberSchema = z.object({
  id: z.string(),
  /** Where it serves the GUI and API (host:port as it listens). */
  address: z.string(),
  role: oamRoleSchema,
  startedAt: z.string(),
  lastSeen: z.string(),
  /** The OAM that answered. */
  self: z.boolean(),
  /** Heard from within the last three heartbeats. */
  present: z.boolean(),
});
export type OamMember = z.output<typeof oamMemberSchema>;
export const oamListViewSchema = z.object({ items: z.array(oamMemberSchema) });

// ---- the source product's measurements (GET /api/measurements)

/** A total since the agents started, or a rate per second; null: "not counted" by every agent. */
const measured = z.number().nonnegative().nullable();
const targetSetValues = {
  rxBytes: measured,
  rxSctpBytes: measured,
  rejected: measured,
  unexpectedTcp: measured,
  unexpectedSctp: measured,
};

/** The rates of the step of the last hour that begins `at` (per second, summed over the IPFEs). */
export const targetSetRatesSchema = z.object({ at: z.string(), ...targetSetValues });
export type TargetSetRates = z.output<typeof targetSetRatesSchema>;
export const serverRatesSchema = z.object({ at: z.string(), txBytes: measured });
export type ServerRates = z.output<typeof serverRatesSchema>;

export const measurementsViewSchema = z.object({
  /** How far back the rates go, and the width of each of their steps. */
  windowSeconds: z.number(),
  stepSeconds: z.number(),
  /** Options › Accounting of the running configuration: off, packet and byte counts stand still. */
  accounting: z.boolean(),
  /** The IPFEs whose agents report measurements now. */
  reporting: z.array(z.enum(IPFE_SLOTS)),
  /** Per Target Set of the running configuration, and per server of it. */
  targetSets: z.array(
    z.object({
      number: z.number(),
      tsa: z.string(),
      /** The current totals, summed over the reporting IPFEs. */
      totals: z.object(targetSetValues),
      /** Oldest first; a step no IPFE reported is left out. */
      rates: z.array(targetSetRatesSchema),
      servers: z.array(
        z.object({ address: z.string(), txBytes: measured, rates: z.array(serverRatesSchema) }),
      ),
    }),
  ),
});
export type MeasurementsView = z.output<typeof measurementsViewSchema>;
export type TargetSetMeasurementsView = MeasurementsView['targetSets'][number];
