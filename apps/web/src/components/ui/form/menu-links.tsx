import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** The menu trails messages name ("add one under Network › Application Servers"), and their pages. */
const MENU_PAGES: Record<string, string> = {
  'IPFE › Configuration › Options': '/options',
  'Network › XSI Networks': '/xsi-networks',
  'Network › Application Servers': '/app-servers',
  'Network › Peer Node Groups': '/peer-node-groups',
};

const TRAIL = new RegExp(
  `(${Object.keys(MENU_PAGES)
    .map((trail) => trail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|')})`,
);

/** A message with each menu trail it names as a link to that page. */
export function withMenuLinks(text: string): ReactNode {
  const parts = text.split(TRAIL);
  if (parts.length === 1) return text;
  return parts.map((part, i) =>
    Object.hasOwn(MENU_PAGES, part) ? (
      <Link key={i} to={MENU_PAGES[part]!}>
        {part}
      </Link>
    ) : (
      part
    ),
  );
}
