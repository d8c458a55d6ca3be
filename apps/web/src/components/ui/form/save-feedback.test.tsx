import { screen, within } from '@testing-library/react';
import { useState } from 'react';
import { useFormState } from 'react-hook-form';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, type Versioned } from '@/lib/api-client';
import { readDraft, removeDrafts } from '@/lib/drafts';
import { renderWithRouter } from '@/testing/render';
import {
  CarriedOutcomeProvider,
  CheckboxField,
  Form,
  FormActions,
  formSchema,
  InputField,
  RadioGroupField,
  SaveFeedback,
  useSave,
  useSchemaForm,
  type SaveOutcome,
} from './index';

interface Thing {
  description: string;
  deleteAge: number;
  protocols: 'tcp' | 'sctp' | 'both';
  disabled: boolean;
}

const schema = formSchema(
  (v: Thing) => v,
  z.object({
    description: z.string(),
    deleteAge: z.number({ error: 'Required' }).int().min(1, { error: 'At least 1' }),
    protocols: z.enum(['tcp', 'sctp', 'both']),
    disabled: z.boolean(),
  }),
);

/** The API's side of an Edit page: a stored entity with its ETag, refusing stale writes (412). */
function store(initial: Thing) {
  let value = initial;
  let revision = 1;
  const etag = () => `"r${revision}"`;
  return {
    read: (): Versioned<Thing> => ({ data: value, etag: etag(), revision: null }),
    /** Someone else saves. */
    write: (change: Partial<Thing>) => {
      value = { ...value, ...change };
      revision += 1;
    },
    save: async (body: Thing, ifMatch: string | null): Promise<Versioned<Thing>> => {
      if (ifMatch !== etag()) {
        throw new ApiError(
          412,
          'PRECONDITION_FAILED',
          'Someone else changed this item',
          [],
          { current: value },
          etag(),
        );
      }
      value = body;
      revision += 1;
      return { data: value, etag: etag(), revision };
    },
    get value() {
      return value;
    },
  };
}

function ThingForm({
  loaded,
  save,
  onReload,
}: {
  loaded: Versioned<Thing>;
  save: (body: Thing) => Promise<Versioned<Thing>>;
  onReload: () => void;
}) {
  const form = useSchemaForm({ schema, defaultValues: loaded.data });
  const { isSubmitting } = useFormState({ control: form.control });
  const { onSubmit, outcome, intent } = useSave({
    form,
    save,
    place: (path) => path,
    what: 'Thing 1',
    onSaved: (saved) => {
      form.reset(saved.data);
      return {
        kind: 'saved',
        message: `Thing 1 saved as revision ${saved.revision}.`,
        warnings: [],
      };
    },
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="Thing">
      <SaveFeedback outcome={outcome} onReload={onReload} />
      <InputField label="Description" registration={form.register('description')} />
      <InputField
        label="Delete Age (s)"
        type="number"
        registration={form.register('deleteAge', { valueAsNumber: true })}
      />
      <RadioGroupField
        label="Protocols"
        registration={form.register('protocols')}
        options={[
          { value: 'tcp', label: 'TCP only' },
          { value: 'sctp', label: 'SCTP only' },
          { value: 'both', label: 'Both TCP and SCTP' },
        ]}
      />
      <CheckboxField label="Disable" registration={form.register('disabled')} />
      <FormActions intent={intent} busy={isSubmitting} onCancel={() => undefined} />
    </Form>
  );
}

/** What an Edit route does: load, save with the loaded ETag, load again on demand. */
function EditPage({
  api,
  carried = null,
}: {
  api: ReturnType<typeof store>;
  carried?: SaveOutcome | null;
}) {
  const [loaded, setLoaded] = useState(api.read);
  const [version, setVersion] = useState(0);
  return (
    <CarriedOutcomeProvider key={version} outcome={version === 0 ? carried : null}>
      <ThingForm
        loaded={loaded}
        save={(body) => api.save(body, loaded.etag)}
        onReload={() => {
          setLoaded(api.read());
          setVersion((v) => v + 1);
        }}
      />
    </CarriedOutcomeProvider>
  );
}

const start: Thing = { description: '', deleteAge: 600, protocols: 'both', disabled: false };
const field = (name: string) => screen.getByLabelText(name);
const rowOf = (table: HTMLElement, name: string) =>
  within(table).getByRole('row', { name: new RegExp(`^${name}`) });
const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

beforeEach(() => removeDrafts());

describe('SaveFeedback, when someone else saved first (412)', () => {
  it('shows what they changed against what the operator started from, keeps the typing on top of their version, and saves it with their ETag', async () => {
    const api = store(start);
    const { user } = renderWithRouter(<EditPage api={api} />);
    api.write({ deleteAge: 1200, protocols: 'tcp' });

    await user.type(field('Description'), 'primary site');
    await user.clear(field('Delete Age (s)'));
    await user.type(field('Delete Age (s)'), '900');
    await user.click(screen.getByRole('button', { name: 'OK' }));

    // Their version is loaded, then the changes show.
    const table = await screen.findByRole('table', { name: 'Changes, field by field' });
    const alert = screen.getByRole('alert');
    expect(alert).toContainElement(table);
    expect(alert).toHaveFocus();
    expect(alert).toHaveTextContent('Changed by someone else');
    expect(alert).toHaveTextContent(
      'Someone else saved Thing 1 after you opened it. Your changes were not saved and nothing was overwritten.',
    );
    expect(alert).toHaveTextContent(
      'You both changed one field: the form holds your value, which replaces theirs when you save.',
    );
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Field', 'When you opened it', 'Their version', 'Your change', 'In the form now']);
    // In the order of the page, with the page's labels and the values as the controls show them.
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((h) => h.textContent),
    ).toEqual(['Description', 'Delete Age (s)', 'Protocols']);
    expect(cells(rowOf(table, 'Description'))).toEqual([
      '(empty)',
      'unchanged',
      'primary site',
      'primary site (yours)',
    ]);
    expect(cells(rowOf(table, 'Delete Age'))).toEqual([
      '600',
      '1200',
      '900',
      '900 (both changed it: yours replaces theirs)',
    ]);
    expect(cells(rowOf(table, 'Protocols'))).toEqual([
      'Both TCP and SCTP',
      'TCP only',
      '—',
      'TCP only (theirs)',
    ]);
    // Their version with the operator's edits on top; nothing saved yet.
    expect(field('Description')).toHaveValue('primary site');
    expect(field('Delete Age (s)')).toHaveValue(900);
    expect(screen.getByRole('radio', { name: 'TCP only' })).toBeChecked();
    expect(api.value).toEqual({ ...start, deleteAge: 1200, protocols: 'tcp' });

    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Thing 1 saved as revision 3.')).toBeInTheDocument();
    expect(screen.queryByText('Changed by someone else')).not.toBeInTheDocument();
    expect(api.value).toEqual({
      description: 'primary site',
      deleteAge: 900,
      protocols: 'tcp',
      disabled: false,
    });
  });

  it('lets the operator drop their edits and keep the other version as it is', async () => {
    const api = store(start);
    const { user } = renderWithRouter(<EditPage api={api} />);
    api.write({ disabled: true });
    await user.type(field('Description'), 'mine');
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    const table = await screen.findByRole('table', { name: 'Changes, field by field' });
    const alert = screen.getByRole('alert');
    expect(cells(rowOf(table, 'Disable'))).toEqual(['off', 'on', '—', 'on (theirs)']);
    await user.click(
      within(alert).getByRole('button', { name: 'Discard my changes, keep theirs' }),
    );
    expect(field('Description')).toHaveValue('');
    expect(field('Disable')).toBeChecked();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('SaveFeedback, when the server refuses', () => {
  it('marks a field the server refuses twice with the first reason, and lists both at the top', async () => {
    const api = store(start);
    const refusing = {
      ...api,
      save: async () => {
        throw new ApiError(400, 'VALIDATION', 'Description is required (and 1 more problem)', [
          { path: 'description', message: 'Description is required' },
          { path: 'description', message: 'Description must be letters' },
        ]);
      },
    };
    const { user } = renderWithRouter(<EditPage api={refusing} />);
    await user.click(screen.getByRole('button', { name: 'OK' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('the server found 2 problems');
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((i) => i.textContent),
    ).toEqual(['Description is required', 'Description must be letters']);
    expect(field('Description')).toHaveAccessibleDescription('Description is required');
  });
});

describe('SaveFeedback shows the latest save only', () => {
  it('drops the banner of an earlier save when the next one is stopped by the form', async () => {
    const api = store(start);
    const { user } = renderWithRouter(<EditPage api={api} />);
    await user.type(field('Description'), 'x');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Thing 1 saved as revision 2.')).toBeInTheDocument();

    await user.clear(field('Delete Age (s)'));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Not saved: correct the fields marked below.',
    );
    expect(screen.queryByText('Thing 1 saved as revision 2.')).not.toBeInTheDocument();
    expect(api.value.description).toBe('x');
  });

  it('drops a message carried from the page before at the next save', async () => {
    const api = store(start);
    const carried: SaveOutcome = {
      kind: 'saved',
      message: 'Thing 1 saved as revision 1.',
      warnings: [],
    };
    const { user } = renderWithRouter(<EditPage api={api} carried={carried} />);
    expect(screen.getByRole('status')).toHaveTextContent('Thing 1 saved as revision 1.');
    await user.clear(field('Delete Age (s)'));
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Not saved');
    expect(screen.queryByText('Thing 1 saved as revision 1.')).not.toBeInTheDocument();
  });
});

describe('SaveFeedback keeps unsaved input for the tab', () => {
  it('while the form differs from the saved version, and no longer once it is saved', async () => {
    const api = store(start);
    const { user } = renderWithRouter(<EditPage api={api} />);
    expect(readDraft('/')).toBeNull();
    await user.type(field('Description'), 'typed');
    expect(readDraft('/')?.mine).toMatchObject({ description: 'typed' });
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Thing 1 saved as revision 2.')).toBeInTheDocument();
    // Nothing unsaved is left to give back after a login.
    expect(readDraft('/')).toBeNull();
  });

  /** A reload skips the page's cleanup: the tab's storage is as it was when the page went. */
  async function reload(page: ReturnType<typeof renderWithRouter>, api: ReturnType<typeof store>) {
    const kept = Array.from({ length: sessionStorage.length }, (_, i) =>
      sessionStorage.key(i)!,
    ).map((k) => [k, sessionStorage.getItem(k)!] as const);
    page.unmount();
    for (const [k, v] of kept) sessionStorage.setItem(k, v);
    return renderWithRouter(<EditPage api={api} />);
  }

  it('takes a save that went through just before a reload as this tab’s own, and drops the draft', async () => {
    const api = store(start);
    let release = () => {};
    const page = renderWithRouter(
      <EditPage
        api={{
          ...api,
          // The server commits at once; its answer never arrives, the page goes first.
          save: (body, ifMatch) => {
            void api.save(body, ifMatch);
            return new Promise((resolve) => (release = () => resolve(api.read())));
          },
        }}
      />,
    );
    await page.user.clear(field('Delete Age (s)'));
    await page.user.type(field('Delete Age (s)'), '900');
    await page.user.click(screen.getByRole('button', { name: 'OK' }));
    expect(api.value.deleteAge).toBe(900);
    await reload(page, api);
    release();
    expect(
      await screen.findByText('Your save went through before the page was loaded again'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/someone else/i)).toBeNull();
    expect(screen.queryByText('Your unsaved changes were kept')).toBeNull();
    expect(field('Delete Age (s)')).toHaveValue(900);
    expect(readDraft('/')).toBeNull();
  });

  it('puts the typing back after a reload when the save did not go through', async () => {
    const api = store(start);
    const page = renderWithRouter(<EditPage api={{ ...api, save: () => new Promise(() => {}) }} />);
    await page.user.type(field('Description'), 'typed');
    await page.user.click(screen.getByRole('button', { name: 'OK' }));
    await reload(page, api);
    expect(await screen.findByText('Your unsaved changes were kept')).toBeInTheDocument();
    expect(screen.queryByText(/someone else/i)).toBeNull();
    expect(field('Description')).toHaveValue('typed');
  });
});
