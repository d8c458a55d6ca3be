import type { ConfigDocument } from '@ipfe/schema';
import { useEffect, useRef } from 'react';
import type { RevisionDiff as Diff } from '../api/get-revision-diff';
import { isWithin, keyedConfig, linesOf } from './document-lines';

const show = (v: unknown) =>
  v === undefined ? '' : JSON.stringify(v, null, 1).replace(/\n\s*/g, ' ');

function Value({ value }: { value: unknown }) {
  if (value === undefined) return <span className="absent">(absent)</span>;
  return <code className="value">{show(value)}</code>;
}

function Side({
  document,
  highlight,
  kind,
}: {
  document: ConfigDocument;
  highlight: string[];
  kind: 'old' | 'new';
}) {
  const lines = linesOf(keyedConfig(document.config));
  const pre = useRef<HTMLPreElement>(null);
  const highlightKey = highlight.join('\n');
  // Bring the first change into view: the documents are long, the changes usually few.
  useEffect(() => {
    const first = pre.current?.querySelector<HTMLElement>('[data-changed]');
    if (pre.current && first) pre.current.scrollTop = Math.max(0, first.offsetTop - 60);
  }, [document, highlightKey]);
  return (
    <section className="diff-side" aria-label={`Revision ${document.revision}`}>
      <h2>Revision {document.revision}</h2>
      <pre
        ref={pre}
        className="document"
        tabIndex={0}
        aria-label={`Configuration of revision ${document.revision}`}
      >
        {lines.map((line, i) => {
          const hit = isWithin(line.path, highlight) && line.path !== '';
          return (
            <span
              key={i}
              className={hit ? `line line-${kind}` : 'line'}
              data-changed={hit || undefined}
            >
              {line.text}
              {'\n'}
            </span>
          );
        })}
      </pre>
    </section>
  );
}

/** Two revisions side by side, the changed paths highlighted, and the list of changes. */
export function RevisionDiff({
  diff,
  from,
  to,
}: {
  diff: Diff;
  from: ConfigDocument;
  to: ConfigDocument;
}) {
  const changes = [
    ...diff.changed.map((c) => ({ kind: 'changed', path: c.path, old: c.old, new: c.new })),
    ...diff.removed.map((c) => ({ kind: 'removed', path: c.path, old: c.value, new: undefined })),
    ...diff.added.map((c) => ({ kind: 'added', path: c.path, old: undefined, new: c.value })),
  ].sort((a, b) => a.path.localeCompare(b.path));
  const oldPaths = [...diff.changed, ...diff.removed].map((c) => c.path);
  const newPaths = [...diff.changed, ...diff.added].map((c) => c.path);
  return (
    <>
      {changes.length === 0 ? (
        <p className="empty">
          Revisions {diff.from} and {diff.to} hold the same configuration.
        </p>
      ) : (
        <table className="data-table diff-table">
          <caption>
            {changes.length} change{changes.length === 1 ? '' : 's'} from revision {diff.from} to
            revision {diff.to}
          </caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Change</th>
              <th scope="col">Revision {diff.from}</th>
              <th scope="col">Revision {diff.to}</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={`${c.kind}:${c.path}`} className={`change-${c.kind}`}>
                <th scope="row">
                  <code>{c.path}</code>
                </th>
                <td>{c.kind}</td>
                <td>
                  <Value value={c.old} />
                </td>
                <td>
                  <Value value={c.new} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="diff-sides">
        <Side document={from} highlight={oldPaths} kind="old" />
        <Side document={to} highlight={newPaths} kind="new" />
      </div>
    </>
  );
}
