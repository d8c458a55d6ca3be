import type { ComponentProps } from 'react';
import { Link, type LinkProps } from 'react-router';

type Variant = 'primary' | 'secondary' | 'danger' | 'link';

export function Button({
  variant = 'secondary',
  className,
  type = 'button',
  ...props
}: ComponentProps<'button'> & { variant?: Variant }) {
  return <button type={type} className={`btn btn-${variant} ${className ?? ''}`} {...props} />;
}

/** A link that looks like a button (navigation, downloads). */
export function ButtonLink({
  variant = 'secondary',
  className,
  ...props
}: LinkProps & { variant?: Variant }) {
  return <Link className={`btn btn-${variant} ${className ?? ''}`} {...props} />;
}
