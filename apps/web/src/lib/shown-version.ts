import { useRef } from 'react';

/**
 * The ETag of the version an Edit form shows. A save must carry that one, not the query's latest:
 * a background refetch (the browser back online, a poll) may load someone else's newer version
 * while the form still shows the old one, and sending its ETag would overwrite their change
 * silently. Taken when the form is built (`formKey` changes on every rebuild) and moved on by
 * each save of this form.
 */
export function useShownVersion(latest: string | null | undefined, formKey: number) {
  const shown = useRef<{ formKey: number; etag: string | null } | null>(null);
  if (latest !== undefined && shown.current?.formKey !== formKey) {
    shown.current = { formKey, etag: latest };
  }
  return {
    etag: () => shown.current?.etag ?? null,
    saved: (etag: string | null) => {
      if (shown.current) shown.current.etag = etag;
    },
  };
}
