/**
 * Whether an error thrown by a store query means the store cannot be reached or written right now
 * (its primary is failing over, restarting or gone), and what to tell the client if so. Such a
 * request answers 503 and may be retried; anything else is the OAM's own fault (500).
 */
const READ_ONLY =
  'The store is read-only right now: its primary is failing over. Try again in a few seconds';
const UNREACHABLE = 'The store cannot be reached right now. Try again in a few seconds';
const BUSY = 'The store is busy with other writes of the same data. Try again';

/** SQLSTATEs of PostgreSQL that mean "not now" rather than "wrong". */
const SQLSTATES = new Map([
  ['25006', READ_ONLY], // read_only_sql_transaction: a standby, or a primary being demoted
  ['57P01', UNREACHABLE], // admin_shutdown
  ['57P02', UNREACHABLE], // crash_shutdown
  ['57P03', UNREACHABLE], // cannot_connect_now: starting up, or in recovery
  ['53300', UNREACHABLE], // too_many_connections
  // serialization_failure, deadlock_detected: what is left after the store's own retries.
  ['40001', BUSY],
  ['40P01', BUSY],
]);

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'NO_PRIMARY',
]);

/** What node-postgres says when a socket dies or a query or connect times out. */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^Query read timeout$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

export function storeUnavailableReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    const known = SQLSTATES.get(code);
    if (known) return known;
    // feature_not_supported: "cannot use serializable mode in a hot standby" — a write's BEGIN.
    if (code === '0A000' && /hot standby/.test(err.message)) return READ_ONLY;
    if (code.startsWith('08')) return UNREACHABLE; // connection_exception and its kin
    if (SOCKET_CODES.has(code)) return UNREACHABLE;
  }
  if (DRIVER_MESSAGES.some((pattern) => pattern.test(err.message))) return UNREACHABLE;
  // A pool's connect that failed on every host throws an AggregateError of their errors.
  if (err instanceof AggregateError && err.errors.length > 0)
    return err.errors.every((e) => storeUnavailableReason(e) !== null) ? UNREACHABLE : null;
  return null;
}

/**
 * Whether a PostgreSQL server answered but cannot take writes yet: a standby, or a primary still
 * starting up — the pair is failing over. Unlike a refused connection or a wrong password, this
 * proves the URL right: an OAM starting meanwhile waits for the primary rather than exit.
 */
export function isNoPrimaryYet(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === '25006' || code === '57P03') return true;
    if (code === '0A000' && /hot standby/.test(e.message)) return true;
  }
  return false;
}
