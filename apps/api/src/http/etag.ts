import { digestOf } from '@ipfe/schema/digest';
import { ApiError } from './errors.ts';

/** A strong ETag over the canonical JSON of what the entity stores. */
export function etagOf(stored: unknown): string {
  return `"${digestOf(stored).slice(0, 32)}"`;
}

/**
 * Optimistic concurrency: a write must carry the ETag its author read. Missing → 428; stale → 412
 * with the current entity, so that nothing is ever overwritten silently. `*` is not accepted.
 */
export function requireIfMatch(
  ifMatch: string | undefined,
  currentEtag: string,
  current: () => unknown,
): void {
  if (!ifMatch) {
    throw new ApiError(
      'PRECONDITION_REQUIRED',
      'If-Match is required: send the ETag of the version you edited',
    );
  }
  const offered = ifMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (!offered.includes(currentEtag)) {
    throw new ApiError(
      'PRECONDITION_FAILED',
      'Someone else changed this item since you loaded it; reload to see their version',
      [],
      { current: current() },
      { etag: currentEtag },
    );
  }
}
