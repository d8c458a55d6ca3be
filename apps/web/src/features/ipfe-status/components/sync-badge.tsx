import { Link } from 'react-router';
import { useIpfe } from '../api/get-ipfe';
import { fleetOf, unservedReasons, unservedWords } from './sync-state';

const CAUSE_WORDS = {
  rejected: 'rejected',
  unreachable: 'unreachable',
  pending: 'pending',
} as const;

/**
 * The header's "N/M IPFEs in sync" (M: configured slots): green when every configured IPFE runs
 * the latest revision and every Target Set Address is served, amber while a push is pending, red
 * when one rejected it or cannot be reached, with the cause named and linked to its row on the
 * Status page — or, every IPFE having applied it, "N/M applied · Target Set 2 not served", linked
 * to the Target Sets (applied is not in sync while a TSA is dark).
 */
export function SyncBadge() {
  const ipfe = useIpfe();
  if (!ipfe.data) {
    return ipfe.isError ? (
      <Link to="/status" className="sync-badge sync-off">
        IPFE status unknown
      </Link>
    ) : null;
  }
  const fleet = fleetOf(ipfe.data.items);
  if (fleet.configured === 0) {
    return (
      <Link to="/options" className="sync-badge sync-off">
        No IPFE configured
      </Link>
    );
  }
  const cause = fleet.cause;
  const dark = cause ? null : unservedWords(ipfe.data.unserved);
  if (dark) {
    const reasons = unservedReasons(ipfe.data.unserved);
    return (
      <Link to="/target-sets" className="sync-badge sync-error" title={reasons}>
        <span className="sync-dot" aria-hidden="true" />
        {fleet.synced}/{fleet.configured} applied <span className="sync-cause">· {dark}</span>
      </Link>
    );
  }
  const causeText = cause
    ? `IPFE ${cause.slot} ${CAUSE_WORDS[cause.state as keyof typeof CAUSE_WORDS]}`
    : null;
  return (
    <Link
      to={cause ? `/status#ipfe-${cause.slot}` : '/status'}
      className={`sync-badge sync-${fleet.tone}`}
      title={
        cause
          ? `${causeText}: see Status & Manage`
          : 'Every configured IPFE runs the latest revision'
      }
    >
      <span className="sync-dot" aria-hidden="true" />
      {fleet.synced}/{fleet.configured} IPFEs in sync
      {causeText && <span className="sync-cause"> · {causeText}</span>}
    </Link>
  );
}
