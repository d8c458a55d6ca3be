import { useEffect } from 'react';
import { Link } from 'react-router';
import { forgetCommit, useLatestCommit } from '@/lib/commits';
import { useIpfe, type IpfeSlotView } from '../api/get-ipfe';
import { unservedReasons, unservedWords } from './sync-state';

export type PushPhase = 'acknowledged' | 'rejected' | 'unreachable' | 'pending';

export interface SlotProgress {
  slot: IpfeSlotView['slot'];
  phase: PushPhase;
  /** The agent's message (rejected) or the last error (unreachable). */
  message: string | null;
}

/** Where one configured IPFE stands with `revision`. */
export function progressOf(slot: IpfeSlotView, revision: number): SlotProgress {
  const base = { slot: slot.slot, message: null };
  if (slot.appliedRevision !== null && slot.appliedRevision >= revision) {
    return { ...base, phase: 'acknowledged' };
  }
  if (slot.rejected && slot.rejected.revision >= revision) {
    return { ...base, phase: 'rejected', message: slot.rejected.error };
  }
  if (slot.state === 'unreachable') {
    return { ...base, phase: 'unreachable', message: slot.lastError };
  }
  return { ...base, phase: 'pending' };
}

const PHASE_WORDS: Record<PushPhase, string> = {
  acknowledged: 'synced',
  rejected: 'rejected',
  unreachable: 'unreachable, retrying',
  pending: 'pending',
};
const PHASE_TONE: Record<PushPhase, string> = {
  acknowledged: 'ok',
  rejected: 'error',
  unreachable: 'error',
  pending: 'warn',
};

/** How long the panel stays once every IPFE has acknowledged. */
export const DONE_LINGER_MS = 6_000;

/**
 * After any change that committed a revision (OK or Apply on any form, a delete, a rollback):
 * the push of that revision to each configured IPFE, pending → synced, or rejected with the
 * agent's message, until every configured IPFE has acknowledged it or one rejected it.
 */
export function PushProgress() {
  const commit = useLatestCommit();
  const ipfe = useIpfe({ interval: commit ? 1_000 : 2_000 });
  const revision = commit?.revision ?? 0;
  const slots = (ipfe.data?.items ?? []).filter((s) => s.configured);
  const progress = slots.map((s) => progressOf(s, revision));
  const rejected = progress.find((p) => p.phase === 'rejected');
  const done = progress.every((p) => p.phase === 'acknowledged');
  const known = Boolean(ipfe.data);

  useEffect(() => {
    if (!commit || !known || !done) return;
    const timer = setTimeout(() => forgetCommit(commit.revision), DONE_LINGER_MS);
    return () => clearTimeout(timer);
  }, [commit, known, done]);

  const acked = progress.filter((p) => p.phase === 'acknowledged').length;
  const unserved = ipfe.data?.unserved ?? [];
  const dark = unservedWords(unserved);
  let outcome: string;
  let tone: string;
  if (!known) {
    outcome = 'Reading the IPFEs…';
    tone = 'warn';
  } else if (slots.length === 0) {
    outcome = 'No IPFE is configured: the revision is kept, and pushed once one is.';
    tone = 'off';
  } else if (rejected) {
    outcome = `IPFE ${rejected.slot} rejected revision ${revision}; it keeps running its previous configuration.`;
    tone = 'error';
  } else if (done && dark) {
    const reasons = unservedReasons(unserved);
    outcome = `${acked}/${slots.length} applied revision ${revision} · ${dark} (${reasons}).`;
    tone = 'error';
  } else if (done) {
    outcome = `Every configured IPFE runs revision ${revision} (${acked}/${slots.length}).`;
    tone = 'ok';
  } else {
    outcome = `Waiting for ${slots.length - acked} of ${slots.length} IPFEs to acknowledge…`;
    tone = progress.some((p) => p.phase === 'unreachable') ? 'error' : 'warn';
  }

  return (
    <div className="push-progress" role="status" aria-live="polite" aria-label="Push progress">
      {commit && (
        <div className={`push-card push-${tone}`}>
          <div className="push-head">
            <strong>Push of revision {revision}</strong>
            <button
              type="button"
              className="push-close"
              aria-label="Dismiss push progress"
              onClick={() => forgetCommit(revision)}
            >
              ×
            </button>
          </div>
          {progress.length > 0 && (
            <ul className="push-list" aria-label={`IPFEs receiving revision ${revision}`}>
              {progress.map((p) => (
                <li key={p.slot}>
                  <span className="push-slot">IPFE-{p.slot}</span>{' '}
                  <span className={`state state-${PHASE_TONE[p.phase]}`}>
                    {PHASE_WORDS[p.phase]}
                  </span>
                  {p.message && <span className="push-message">{p.message}</span>}
                </li>
              ))}
            </ul>
          )}
          <p className="push-outcome">
            {outcome} <Link to="/status">Open the Status page</Link>
          </p>
        </div>
      )}
    </div>
  );
}
