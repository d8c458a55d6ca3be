import { WEIGHT } from '@ipfe/schema';
import { useEffect, useMemo, useState } from 'react';
import { useAfterPaint } from '@/lib/after-paint';
import type * as PreviewModel from './change-preview-model';
import type { PreviewServer } from './change-preview-model';

type Model = typeof PreviewModel;
let model: Model | null = null;
let loading: Promise<Model> | null = null;

/**
 * The preview's model and with it the forwarding engine (@ipfe/engine), fetched when a preview
 * first opens: no other page needs the engine's code.
 */
export function loadPreviewModel(): Promise<Model> {
  loading ??= import('./change-preview-model').then(
    (loaded) => (model = loaded),
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

function usePreviewModel(): { model: Model | null; failed: boolean } {
  const [state, setState] = useState({ model, failed: false });
  useEffect(() => {
    if (state.model) return;
    let live = true;
    loadPreviewModel().then(
      (loaded) => live && setState({ model: loaded, failed: false }),
      () => live && setState({ model: null, failed: true }),
    );
    return () => {
      live = false;
    };
  }, [state.model]);
  return state;
}

export interface ChangePreviewProps {
  /** The saved Target Set (Edit), or null (Insert). */
  saved: { algorithm: 'hash' | 'leastLoad'; servers: PreviewServer[] } | null;
  algorithm: 'hash' | 'leastLoad';
  /** The IP list as the form holds it now (rows without an address are left out). */
  servers: { address?: string; weight?: unknown }[];
  /** Application server names by address. */
  names: Map<string, string>;
}

const pct = (value: number | null) => (value === null ? '—' : `${value.toFixed(1)} %`);

function validList(rows: [string, unknown][]): PreviewServer[] | null {
  const list: PreviewServer[] = [];
  for (const [address, w] of rows) {
    if (!address) continue;
    if (typeof w !== 'number' || !Number.isInteger(w) || w < WEIGHT.min || w > WEIGHT.max) {
      return null;
    }
    list.push({ address, weight: w });
  }
  return list;
}

/**
 * What the edit would do, computed in the browser with the forwarding engine: each server's share
 * of new connections before and after, and for Hash the share of clients (source address and
 * port) that the new Maglev table sends to another server than the saved one does.
 */
export function ChangePreview({ saved, algorithm, servers, names }: ChangePreviewProps) {
  // The form hands a new array on every render: the list's content decides when to recompute,
  // after the keystroke that changed it is painted (a row added or removed counts at once).
  const key = useAfterPaint(
    JSON.stringify(servers.map((r) => [r.address ?? '', r.weight ?? null])),
    servers.length,
  );
  const edited = useMemo(() => validList(JSON.parse(key) as [string, unknown][]), [key]);
  const { model: engine, failed } = usePreviewModel();
  const preview = useMemo(() => {
    if (!engine || !edited || edited.length === 0) return null;
    const { shareRows, remappedShare } = engine;
    const base = saved && saved.algorithm === algorithm ? saved.servers : null;
    return {
      rows: shareRows(base, edited, algorithm),
      remapped: algorithm === 'hash' && base ? remappedShare(base, edited) : null,
      compared: base !== null,
    };
  }, [engine, edited, saved, algorithm]);

  if (failed) {
    return (
      <p className="section-text" role="alert">
        The preview could not load the forwarding engine: reload the page to try again.
      </p>
    );
  }
  if (!engine) {
    return (
      <p className="section-text" role="status">
        Loading the forwarding engine…
      </p>
    );
  }
  if (!edited) {
    return <p className="section-text">Fix the weights to see the preview.</p>;
  }
  if (!preview) {
    return <p className="section-text">Choose a server to see the preview.</p>;
  }
  const total = edited.reduce((sum, s) => sum + s.weight, 0);
  let headline: string;
  if (total === 0) {
    headline = 'Every weight is 0: no server would take a new connection.';
  } else if (algorithm === 'hash') {
    if (!saved) headline = 'A new Target Set: no client has a server yet.';
    else if (saved.algorithm !== 'hash')
      headline = 'Switching to Hash: every client is placed by the new Maglev table.';
    else if (preview.remapped === null) headline = 'The saved list has no non-zero weight.';
    else if (preview.remapped === 0) headline = 'This change remaps no client.';
    else headline = `This change remaps ${(preview.remapped * 100).toFixed(1)} % of clients.`;
  } else {
    headline =
      'Least Load keeps no client-to-server map: open connections stay; new connections follow the loads, and these shares while the loads are within the allowed deviation.';
  }
  const changed = preview.rows.some(
    (r) =>
      Math.abs((r.saved ?? 0) - (r.edited ?? 0)) >= 0.05 || r.saved === null || r.edited === null,
  );
  return (
    <div className="change-preview">
      <p className="preview-headline" aria-live="polite">
        <strong>{headline}</strong>
        {algorithm === 'hash' && saved?.algorithm === 'hash' && (
          <span className="sub">
            Clients are (source address, source port) keys; the saved and edited lists&apos; Maglev
            tables are compared entry by entry, as the IPFE builds them.
          </span>
        )}
      </p>
      <table className="nested-table preview-table">
        <caption className="visually-hidden">
          Share of new connections per server, saved and edited
        </caption>
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col" className="num">
              {preview.compared ? 'Saved share' : 'Share'}
            </th>
            {preview.compared && (
              <>
                <th scope="col" className="num">
                  Edited share
                </th>
                <th scope="col" className="num">
                  Change
                </th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((r) => {
            const delta = (r.edited ?? 0) - (r.saved ?? 0);
            return (
              <tr key={r.address}>
                <th scope="row">
                  <code>{r.address}</code>
                  {names.get(r.address) && (
                    <span className="sub-inline"> {names.get(r.address)}</span>
                  )}
                </th>
                {preview.compared ? (
                  <>
                    <td className="num">{r.saved === null ? 'added' : pct(r.saved)}</td>
                    <td className="num">{r.edited === null ? 'removed' : pct(r.edited)}</td>
                    <td className="num">
                      {Math.abs(delta) < 0.05
                        ? '—'
                        : `${delta > 0 ? '+' : '−'}${Math.abs(delta).toFixed(1)} pp`}
                    </td>
                  </>
                ) : (
                  <td className="num">{pct(r.edited)}</td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {preview.compared && !changed && <p className="field-note">No share changes.</p>}
    </div>
  );
}
