import { useId, type ReactNode } from 'react';

/**
 * A titled block of a page, like the source GUI's section bands ("Target Set", "Least Load
 * Parameters"). `disabled` greys out and locks every control inside, without hiding them.
 */
export function Section({
  title,
  children,
  disabled,
  note,
  actions,
}: {
  title: string;
  children: ReactNode;
  disabled?: boolean;
  note?: ReactNode;
  actions?: ReactNode;
}) {
  const id = useId();
  return (
    <section className={`section ${disabled ? 'section-disabled' : ''}`} aria-labelledby={id}>
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        {note && <span className="section-note">{note}</span>}
        {actions && <span className="section-actions">{actions}</span>}
      </div>
      <fieldset className="section-body" disabled={disabled} aria-labelledby={id}>
        {children}
      </fieldset>
    </section>
  );
}
