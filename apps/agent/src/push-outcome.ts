import type { ConfigDocument, FieldError } from '@ipfe/schema';
import { checkDocument, rejectionText } from './document-check.ts';

/**
 * What becomes of a pushed document (SPEC §4.1): applied (or applied already, the same revision
 * and content), stale (an older revision, or the applied one with other content), or invalid (the
 * schema or the digest refuses it). The control API maps these to HTTP status codes.
 */
export type PushOutcome =
  | { outcome: 'applied'; revision: number; sha256: string }
  | { outcome: 'stale'; message: string }
  | { outcome: 'invalid'; message: string; fields: FieldError[] };

/** The verdict on a pushed body, before anything is written: `apply` false when it is applied already. */
export type PushVerdict =
  | { outcome: 'applied'; document: ConfigDocument; apply: boolean }
  | Exclude<PushOutcome, { outcome: 'applied' }>;

export function judgePush(
  applied: Pick<ConfigDocument, 'revision' | 'sha256'> | null,
  body: unknown,
): PushVerdict {
  const checked = checkDocument(body);
  if (!checked.ok) {
    const first = checked.fields[0];
    const message = `Configuration rejected: ${first ? rejectionText(body, first) : 'invalid'}`;
    return { outcome: 'invalid', message, fields: checked.fields };
  }
  const document = checked.document;
  if (applied && document.revision < applied.revision) {
    return {
      outcome: 'stale',
      message: `revision ${document.revision} is older than the applied revision ${applied.revision}`,
    };
  }
  if (applied && document.revision === applied.revision) {
    if (document.sha256 === applied.sha256) return { outcome: 'applied', document, apply: false };
    return {
      outcome: 'stale',
      message: `revision ${document.revision} is applied already with other content`,
    };
  }
  return { outcome: 'applied', document, apply: true };
}
