import { screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { FieldIssue, Versioned } from '@/lib/api-client';
import { renderWithRouter } from '@/testing/render';
import {
  Form,
  FormActions,
  formSchema,
  InputField,
  SaveFeedback,
  usePageSave,
  useSchemaForm,
  type EditPage,
} from './index';

interface Thing {
  number: number;
  description: string;
}
type Saved = Versioned<Thing & { warnings: FieldIssue[] }>;

const schema = formSchema(
  (v: Thing) => v,
  z.object({ number: z.number(), description: z.string() }),
);

function ThingForm({ thing, ...page }: { thing: Thing | null } & EditPage<Thing, Saved, number>) {
  const form = useSchemaForm({
    schema,
    defaultValues: thing ?? { number: 7, description: '' },
  });
  const { onSubmit, outcome, intent } = usePageSave({
    form,
    page,
    inserting: !thing,
    what: 'The thing',
    place: (path) => path,
    title: (saved) => `Thing ${saved.number}`,
    keyOf: (saved) => saved.number,
    valuesOf: ({ number, description }) => ({ number, description }),
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="Thing">
      <SaveFeedback outcome={outcome} onReload={page.onReload} />
      <InputField label="Description" registration={form.register('description')} />
      <FormActions intent={intent} onCancel={() => page.onDone(null)} />
    </Form>
  );
}

/** An API that numbers its versions: each save answers the next ETag and revision. */
function api() {
  let revision = 1;
  return vi.fn(async (body: Thing, _etag: string | null): Promise<Saved> => {
    revision += 1;
    return { data: { ...body, warnings: [] }, etag: `"r${revision}"`, revision };
  });
}

/** An Edit page whose query may load someone else's newer version while the form is open. */
function EditThing({ save, ...page }: Omit<EditPage<Thing, Saved, number>, 'etag'>) {
  const [etag, setEtag] = useState('"r1"');
  return (
    <>
      <button type="button" onClick={() => setEtag('"r9"')}>
        A newer version arrives
      </button>
      <ThingForm thing={{ number: 3, description: 'old' }} etag={etag} save={save} {...page} />
    </>
  );
}

const noop = () => undefined;

describe('the save of an Insert/Edit page', () => {
  it('sends the ETag of the version it shows, then the saved one’s, never a newer one it does not show', async () => {
    const save = api();
    const { user } = renderWithRouter(
      <EditThing save={save} onDone={noop} onInserted={noop} onReload={noop} />,
    );
    await user.click(screen.getByRole('button', { name: 'A newer version arrives' }));
    await user.type(screen.getByLabelText('Description'), ' and new');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Thing 3 saved as revision 2.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Thing 3 saved as revision 3.')).toBeInTheDocument();
    expect(save.mock.calls.map(([, etag]) => etag)).toEqual(['"r1"', '"r2"']);
  });

  it('goes back with what was saved after OK, and to the Edit page of what Apply inserted', async () => {
    const onDone = vi.fn();
    const onInserted = vi.fn();
    const { user } = renderWithRouter(
      <ThingForm
        thing={null}
        save={api()}
        onDone={onDone}
        onInserted={onInserted}
        onReload={noop}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    const saved = { kind: 'saved', message: 'Thing 7 saved as revision 2.', warnings: [] };
    expect(await screen.findByText(saved.message)).toBeInTheDocument();
    expect(onInserted).toHaveBeenCalledWith(7, saved);
    expect(onDone).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await vi.waitFor(() =>
      expect(onDone).toHaveBeenCalledWith({ ...saved, message: 'Thing 7 saved as revision 3.' }),
    );
  });
});
