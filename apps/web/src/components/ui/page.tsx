import { useEffect, type ReactNode } from 'react';

/**
 * A page's title block: the path in the menu tree (as the source GUI titles its pages), the title,
 * and the page's toolbar. Sets the document title, so that history and tabs read well.
 */
export function Page({
  trail,
  title,
  toolbar,
  children,
}: {
  trail: string[];
  title: string;
  toolbar?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · IPFE OAM`;
  }, [title]);
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <p className="trail">{trail.join(' › ')}</p>
          <h1>{title}</h1>
        </div>
        {toolbar && <div className="toolbar">{toolbar}</div>}
      </div>
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}
