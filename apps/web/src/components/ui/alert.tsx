import type { ReactNode } from 'react';

type Tone = 'error' | 'warning' | 'success' | 'info';

/** A message block; errors interrupt (role=alert), the rest are polite status messages. */
export function Alert({
  tone,
  title,
  children,
  actions,
}: {
  tone: Tone;
  title?: string;
  children?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <div className="alert-text">
        {title && <strong>{title}</strong>}
        {children && <div>{children}</div>}
      </div>
      {actions && <div className="alert-actions">{actions}</div>}
    </div>
  );
}
