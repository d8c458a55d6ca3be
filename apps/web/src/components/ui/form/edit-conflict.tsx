import { Alert } from '../alert';
import { Button } from '../button';
import { isConflict, type FieldChange } from './merge';

/** One changed field as the operator reads it: the field's label, the values as the controls show them. */
export interface ChangeRow {
  path: string;
  label: string;
  base: string;
  mine: string;
  theirs: string;
  byMe: boolean;
  byThem: boolean;
  conflict: boolean;
}

const EMPTY = '(empty)';

function controlOf(root: ParentNode, path: string) {
  return root.querySelector<HTMLElement>(`[name="${path}"]`);
}

const textOf = (el: Element | null | undefined) => el?.textContent?.trim() || null;

function labelledBy(root: ParentNode, el: Element) {
  const ids = el.getAttribute('aria-labelledby');
  if (!ids) return null;
  const doc = (root as Node).ownerDocument ?? document;
  return (
    ids
      .split(/\s+/)
      .map((id) => textOf(doc.getElementById(id)))
      .filter(Boolean)
      .join(' ') || null
  );
}

/** The field's name as the page shows it: its label, its group's label, or its section's title. */
export function labelOf(root: ParentNode, path: string): string {
  const el = controlOf(root, path);
  if (el) {
    const group = el.closest('[role="radiogroup"]');
    if (group) return labelledBy(root, group) ?? group.getAttribute('aria-label') ?? path;
    const named =
      el.getAttribute('aria-label') ??
      textOf((el as HTMLInputElement).labels?.[0]) ??
      labelledBy(root, el);
    if (named) return named;
  }
  // A list compared whole ("servers"): the section that holds its rows.
  const inner = root.querySelector(`[name^="${path}."]`);
  return textOf(inner?.closest('section')?.querySelector('h2')) ?? path;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined || Number.isNaN(value) || value === '') return EMPTY;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return String(value);
}

/** A value as its control shows it: a choice by its label, a checkbox as on/off. */
export function showValue(root: ParentNode, path: string, value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((item) =>
        item && typeof item === 'object'
          ? Object.values(item as Record<string, unknown>)
              .filter((v) => scalar(v) !== EMPTY)
              .map(scalar)
              .join(', ')
          : scalar(item),
      )
      .join('; ');
  }
  const el = controlOf(root, path);
  if (el instanceof HTMLInputElement && el.type === 'radio' && typeof value === 'string') {
    const choice = [
      ...root.querySelectorAll<HTMLInputElement>(`input[type="radio"][name="${path}"]`),
    ].find((input) => input.value === value);
    const label = textOf(choice?.labels?.[0]);
    if (label) return label;
  }
  if (el instanceof HTMLSelectElement && value !== null && value !== undefined) {
    const option = [...el.options].find((o) => o.value === String(value));
    if (option && option.value !== '') return option.text;
  }
  return scalar(value);
}

/** The changes in the order of the page's controls. */
export function describeChanges(root: ParentNode, changes: FieldChange[]): ChangeRow[] {
  const position = (path: string) =>
    controlOf(root, path) ?? root.querySelector(`[name^="${path}."]`);
  const rows = changes.map((c) => ({
    row: {
      path: c.path,
      label: labelOf(root, c.path),
      base: showValue(root, c.path, c.base),
      mine: showValue(root, c.path, c.mine),
      theirs: showValue(root, c.path, c.theirs),
      byMe: c.byMe,
      byThem: c.byThem,
      conflict: isConflict(c),
    },
    at: position(c.path),
  }));
  return rows
    .sort((a, b) => {
      if (!a.at || !b.at) return a.at ? -1 : b.at ? 1 : 0;
      return a.at.compareDocumentPosition(b.at) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    })
    .map((r) => r.row);
}

function ChangesTable({ rows, theirs }: { rows: ChangeRow[]; theirs: boolean }) {
  return (
    <div className="table-scroll">
      <table className="grid-table changes-table">
        <caption className="visually-hidden">Changes, field by field</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">When you opened it</th>
            {theirs && <th scope="col">Their version</th>}
            <th scope="col">Your change</th>
            <th scope="col">In the form now</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.path} className={r.conflict ? 'change-conflict' : undefined}>
              <th scope="row">{r.label}</th>
              <td>{r.base}</td>
              {theirs && <td>{r.byThem ? r.theirs : 'unchanged'}</td>}
              <td>{r.byMe ? r.mine : '—'}</td>
              <td>
                {r.byMe ? r.mine : r.theirs}{' '}
                <span className="change-source">
                  {r.conflict
                    ? '(both changed it: yours replaces theirs)'
                    : r.byMe && r.byThem
                      ? '(the same in both)'
                      : r.byMe
                        ? '(yours)'
                        : '(theirs)'}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface KeptEdits {
  /**
   * stale: a save was refused because someone else saved first; session: the session ended;
   * reload: the page was loaded again (the tab keeps what was typed).
   */
  reason: 'stale' | 'session' | 'reload';
  /** "Target Set 4", "The options" (stale only). */
  what: string | null;
  rows: ChangeRow[];
}

/** In a sentence: "the options", "Target Set 4". */
const inSentence = (what: string) => what.replace(/^The /, 'the ');

/**
 * The operator's unsaved edits, put back on the version that is saved now: what someone else
 * changed meanwhile, what the operator changed, and which value the form holds where both did.
 */
export function KeptEditsNotice({ kept, onDiscard }: { kept: KeptEdits; onDiscard: () => void }) {
  const theirs = kept.rows.some((r) => r.byThem);
  const mine = kept.rows.some((r) => r.byMe);
  const conflicts = kept.rows.filter((r) => r.conflict).length;
  const discard = mine && (
    <Button onClick={onDiscard}>
      {theirs ? 'Discard my changes, keep theirs' : 'Discard my changes'}
    </Button>
  );
  const table = kept.rows.length > 0 && <ChangesTable rows={kept.rows} theirs={theirs} />;
  const onTop = mine
    ? ' Their version is in the form now, with your changes on top of it. Check them, then save again.'
    : ' Their version is in the form now.';
  const both =
    conflicts > 0 &&
    ` You both changed ${conflicts === 1 ? 'one field' : `${conflicts} fields`}: the form holds your value, which replaces theirs when you save.`;

  if (kept.reason === 'stale') {
    const what = kept.what ? inSentence(kept.what) : 'this item';
    return (
      <Alert tone="error" title="Changed by someone else" actions={discard}>
        <p className="alert-lead">
          Someone else saved {what} after you opened it. Your changes were not saved and nothing was
          overwritten.
          {theirs ? onTop : ' Their save changed nothing shown on this page.'}
          {both}
        </p>
        {table}
      </Alert>
    );
  }
  return (
    <Alert
      tone={theirs ? 'warning' : 'info'}
      title="Your unsaved changes were kept"
      actions={discard}
    >
      <p className="alert-lead">
        {kept.reason === 'session'
          ? 'Your session ended before you saved; '
          : 'This page was loaded again before you saved; '}
        what you had typed is back in the form, not saved yet.
        {theirs &&
          ' Meanwhile someone else saved a new version: it is in the form, with your changes on top of it.'}
        {both}
      </p>
      {table}
    </Alert>
  );
}
