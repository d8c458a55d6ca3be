import { useMemo, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { CarriedOutcomeProvider, type SaveOutcome } from '@/components/ui/form/carried-outcome';
import type { EditPage } from '@/components/ui/form/form-actions';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { canEdit, useUser } from '@/lib/auth';
import { SavedNotice, type SavedState } from './saved-notice';

interface Query<T> {
  data: T | undefined;
  isError: boolean;
  error: Error | null;
  refetch(): Promise<unknown>;
}

/** What names an item: its name, or its number (Target Sets). */
type CollectionKey = string | number;

/** What the Insert/Edit form of every collection is given. */
export interface CollectionFormProps<
  Entity,
  Body,
  Saved,
  Key extends CollectionKey = string,
> extends EditPage<Body, Saved, Key> {
  /** Edit: the entity as the API shows it; Insert: null. */
  entity: Entity | null;
}

/**
 * What differs between the pages of a collection (Target Sets, XSI networks, application servers,
 * peer node groups): words, hooks, the list and the form. An item is named by its key in the
 * address and in sentences: "XSI network xsi1", "Target Set 3".
 */
export interface Collection<
  Entity,
  View,
  Body,
  Saved extends { etag: string | null },
  Key extends CollectionKey = string,
> {
  trail: string[];
  path: string;
  /** "XSI Networks": the page title; Insert and Edit add [Insert] and [Edit]. */
  title: string;
  /** The list page's title, where it differs ("Target Sets [View]"). */
  listTitle?: string;
  /** "XSI network", "Application server": at the start of a sentence. */
  noun: string;
  /** "XSI network", "application server": inside a sentence. */
  nounInSentence: string;
  keyOf(item: View): Key;
  /** The key as the Edit page's address spells it (default: as it is, for a name). */
  keyFromPath?(param: string): Key;
  /** The Insert buttons of the list (default: one, Insert). */
  insert?: { to: string; label: string }[];
  /** Why no item can be inserted given the list ("All 32 Target Set numbers are in use"), or null. */
  insertRefusal?(items: View[]): string | null;
  /** Beside the list's buttons, for viewers too (Export). */
  toolbarExtra?: ReactNode;
  useList(): Query<View[]>;
  useOne(key: Key): Query<{ data: Entity; etag: string | null }>;
  useCreate(): { mutateAsync(body: Body): Promise<Saved> };
  useUpdate(): {
    mutateAsync(args: { key: Key; data: Body; etag: string | null }): Promise<Saved>;
  };
  useDelete(): { mutateAsync(key: Key): Promise<unknown> };
  renderList(props: {
    items: View[];
    selected: Key | null;
    onSelect?: (key: Key) => void;
    editor: boolean;
  }): ReactNode;
  renderForm(props: CollectionFormProps<Entity, Body, Saved, Key>): ReactNode;
}

/** The message a save leaves for the page it goes on to. */
const savedState = (outcome: SaveOutcome | null): SavedState | null =>
  outcome?.kind === 'saved' ? { saved: outcome.message, warnings: outcome.warnings } : null;

/** The list (View), Insert and Edit pages of a collection; the Edit page's address ends in `:key/edit`. */
export function collectionRoutes<
  Entity,
  View,
  Body,
  Saved extends { etag: string | null },
  Key extends CollectionKey = string,
>(c: Collection<Entity, View, Body, Saved, Key>) {
  const editPath = (key: Key | string) => `${c.path}/${encodeURIComponent(key)}/edit`;
  const keyFromPath = c.keyFromPath ?? ((param: string) => param as Key);
  const plural = `${c.nounInSentence}s`;
  const insert = c.insert ?? [{ to: `${c.path}/insert`, label: 'Insert' }];

  function useDone() {
    const navigate = useNavigate();
    return (outcome: SaveOutcome | null) => void navigate(c.path, { state: savedState(outcome) });
  }

  function ListRoute() {
    const items = c.useList();
    const { data: user } = useUser();
    const remove = c.useDelete();
    const [selected, setSelected] = useState<Key | null>(null);
    const editor = canEdit(user);
    const current = items.data?.find((item) => c.keyOf(item) === selected) ?? null;
    const currentKey = current && c.keyOf(current);
    return (
      <Page
        trail={c.trail}
        title={c.listTitle ?? c.title}
        toolbar={
          editor ? (
            <ListToolbar
              noun={c.noun}
              selected={
                currentKey !== null
                  ? { key: String(currentKey), label: `${c.nounInSentence} ${currentKey}` }
                  : null
              }
              insert={insert}
              insertRefusal={items.data ? (c.insertRefusal?.(items.data) ?? null) : null}
              editPath={editPath}
              onDelete={async (key) => {
                await remove.mutateAsync(keyFromPath(key));
                setSelected(null);
              }}
              extra={c.toolbarExtra}
            />
          ) : (
            c.toolbarExtra !== undefined && <div className="toolbar">{c.toolbarExtra}</div>
          )
        }
      >
        <SavedNotice />
        {items.isError && <Alert tone="error" title={items.error?.message ?? 'Error'} />}
        {items.data
          ? c.renderList({
              items: items.data,
              selected,
              onSelect: editor ? setSelected : undefined,
              editor,
            })
          : !items.isError && <Loading what={plural} />}
      </Page>
    );
  }

  function InsertRoute() {
    const navigate = useNavigate();
    const create = c.useCreate();
    const onDone = useDone();
    const items = c.useList();
    // The Insert address opened directly (a bookmark, another tab): the same refusal as the list's.
    const refusal = items.data ? (c.insertRefusal?.(items.data) ?? null) : null;
    return (
      <Page trail={c.trail} title={`${c.title} [Insert]`}>
        {refusal ? (
          <Alert tone="warning" title={`${refusal}.`}>
            <p>
              Delete one first, or edit an existing one. <Link to={c.path}>Back to {c.title}</Link>
            </p>
          </Alert>
        ) : c.insertRefusal && !items.data ? (
          <Loading what={plural} />
        ) : (
          c.renderForm({
            entity: null,
            save: (body) => create.mutateAsync(body),
            onDone,
            onInserted: (key, outcome) =>
              void navigate(editPath(key), { replace: true, state: savedState(outcome) }),
            onReload: () => undefined,
          })
        )}
      </Page>
    );
  }

  function EditRoute() {
    const { key: param = '' } = useParams();
    const key = keyFromPath(param);
    const location = useLocation();
    const item = c.useOne(key);
    const update = c.useUpdate();
    const onDone = useDone();
    const [version, setVersion] = useState(0);
    const loaded = item.data;
    // Apply on Insert came here with its message: the form shows it until the next save.
    const state = location.state as SavedState | null;
    const carried = useMemo<SaveOutcome | null>(
      () =>
        version === 0 && state?.saved
          ? { kind: 'saved', message: state.saved, warnings: state.warnings ?? [] }
          : null,
      [version, state],
    );
    return (
      <Page trail={c.trail} title={`${c.title} [Edit]`}>
        {item.isError && <Alert tone="error" title={item.error?.message ?? 'Error'} />}
        {loaded ? (
          <CarriedOutcomeProvider key={version} outcome={carried}>
            {c.renderForm({
              entity: loaded.data,
              // The form keeps the version it shows (useSave) and sends its ETag.
              etag: loaded.etag,
              save: (body, etag) => update.mutateAsync({ key, data: body, etag }),
              onDone,
              onInserted: () => undefined,
              onReload: () => void item.refetch().then(() => setVersion((v) => v + 1)),
            })}
          </CarriedOutcomeProvider>
        ) : (
          !item.isError && <Loading what={`${c.nounInSentence} ${key}`} />
        )}
      </Page>
    );
  }

  return { ListRoute, InsertRoute, EditRoute };
}
