import { useMemo, useState, type ReactNode } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { CarriedOutcomeProvider, type SaveOutcome } from '@/components/ui/form';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { canEdit, useUser } from '@/lib/auth';
import { useShownVersion } from '@/lib/shown-version';
import { SavedNotice, type SavedState } from './saved-notice';

interface Query<T> {
  data: T | undefined;
  isError: boolean;
  error: Error | null;
  refetch(): Promise<unknown>;
}

interface FormProps<Entity, Body, Saved> {
  entity: Entity | null;
  save: (body: Body) => Promise<Saved>;
  onDone: (saved?: string) => void;
  onSavedInsert: (name: string) => void;
  onReload: () => void;
}

/**
 * What differs between the pages of a collection keyed by name (XSI networks, application
 * servers, peer node groups): words, hooks, the list and the form.
 */
export interface NamedCollection<
  Entity,
  View extends { name: string },
  Body,
  Saved extends { etag: string | null },
> {
  trail: string[];
  path: string;
  /** "XSI Networks": the page title. */
  title: string;
  /** "XSI network", "Application server": at the start of a sentence. */
  noun: string;
  /** "XSI network", "application server": inside a sentence. */
  nounInSentence: string;
  useList(): Query<View[]>;
  useOne(name: string): Query<{ data: Entity; etag: string | null }>;
  useCreate(): { mutateAsync(body: Body): Promise<Saved> };
  useUpdate(): {
    mutateAsync(args: { name: string; data: Body; etag: string | null }): Promise<Saved>;
  };
  useDelete(): { mutateAsync(name: string): Promise<unknown> };
  renderList(props: {
    items: View[];
    selected: string | null;
    onSelect?: (name: string) => void;
  }): ReactNode;
  renderForm(props: FormProps<Entity, Body, Saved>): ReactNode;
}

/** The list (View), Insert and Edit pages of a named collection. */
export function namedCollectionRoutes<
  Entity,
  View extends { name: string },
  Body,
  Saved extends { etag: string | null },
>(c: NamedCollection<Entity, View, Body, Saved>) {
  const editPath = (name: string) => `${c.path}/${encodeURIComponent(name)}/edit`;
  const plural = `${c.nounInSentence}s`;

  function ListRoute() {
    const items = c.useList();
    const { data: user } = useUser();
    const remove = c.useDelete();
    const [selected, setSelected] = useState<string | null>(null);
    const editor = canEdit(user);
    const current = items.data?.find((n) => n.name === selected) ?? null;
    return (
      <Page
        trail={c.trail}
        title={c.title}
        toolbar={
          editor && (
            <ListToolbar
              noun={c.noun}
              selected={
                current && { key: current.name, label: `${c.nounInSentence} ${current.name}` }
              }
              insert={[{ to: `${c.path}/insert`, label: 'Insert' }]}
              editPath={editPath}
              onDelete={async (name) => {
                await remove.mutateAsync(name);
                setSelected(null);
              }}
            />
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
            })
          : !items.isError && <Loading what={plural} />}
      </Page>
    );
  }

  function InsertRoute() {
    const navigate = useNavigate();
    const create = c.useCreate();
    return (
      <Page trail={c.trail} title={`${c.title} [Insert]`}>
        {c.renderForm({
          entity: null,
          save: (body) => create.mutateAsync(body),
          onDone: (saved) => void navigate(c.path, { state: saved ? { saved } : null }),
          onSavedInsert: (name) =>
            void navigate(editPath(name), {
              replace: true,
              state: { saved: `${c.noun} ${name} saved.` } satisfies SavedState,
            }),
          onReload: () => undefined,
        })}
      </Page>
    );
  }

  function EditRoute() {
    const { name = '' } = useParams();
    const navigate = useNavigate();
    const location = useLocation();
    const item = c.useOne(name);
    const update = c.useUpdate();
    const [version, setVersion] = useState(0);
    const loaded = item.data;
    const shown = useShownVersion(loaded?.etag, version);
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
              save: async (body) => {
                const saved = await update.mutateAsync({ name, data: body, etag: shown.etag() });
                shown.saved(saved.etag);
                return saved;
              },
              onDone: (saved) => void navigate(c.path, { state: saved ? { saved } : null }),
              onSavedInsert: () => undefined,
              onReload: () => void item.refetch().then(() => setVersion((v) => v + 1)),
            })}
          </CarriedOutcomeProvider>
        ) : (
          !item.isError && <Loading what={`${c.nounInSentence} ${name}`} />
        )}
      </Page>
    );
  }

  return { ListRoute, InsertRoute, EditRoute };
}
