import { NAME_LENGTH, XSI_NETWORKS_MAX, xsiNetworkSchema, type XsiNetwork } from '@ipfe/schema';
import { useFormState } from 'react-hook-form';
import {
  Form,
  FormActions,
  formSchema,
  InputField,
  NameField,
  SaveFeedback,
  useSave,
  type SaveOutcome,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import { savedAs } from '@/lib/commits';
import { useSchemaForm } from '@/components/ui/form';
import type { XsiNetworkView } from '../api/get-xsi-networks';

interface XsiNetworkFormValues {
  name: string;
  cidr: string;
}

const schema = formSchema((v: XsiNetworkFormValues) => v, xsiNetworkSchema);
const place = (path: string) => (path === 'name' || path === 'cidr' ? path : null);

/** Insert (no `network`) or Edit an XSI network. The name is the key: read-only on Edit. */
export function XsiNetworkForm({
  network,
  save,
  onDone,
  onInserted,
  onReload,
}: {
  network: XsiNetwork | null;
  save: (body: XsiNetwork) => Promise<Versioned<XsiNetworkView>>;
  /** Back to the list: after OK with what was saved, after Cancel with nothing. */
  onDone: (outcome: SaveOutcome | null) => void;
  /** After Apply on Insert: edited from here on. */
  onInserted: (name: string, outcome: SaveOutcome) => void;
  onReload: () => void;
}) {
  const form = useSchemaForm({
    schema,
    // The form's own fields only: the answer's `warnings` is no field, and the schema is strict.
    defaultValues: { name: network?.name ?? '', cidr: network?.cidr ?? '' },
  });
  const { isSubmitting } = useFormState({ control: form.control });
  const { onSubmit, outcome, intent } = useSave({
    form,
    save,
    place,
    what: 'The XSI network',
    onSaved: (saved, how) => {
      const result: SaveOutcome = {
        kind: 'saved',
        message: savedAs(`XSI network ${saved.data.name}`, saved),
        warnings: saved.data.warnings,
      };
      if (how === 'ok') {
        onDone(result);
        return null;
      }
      form.reset({ name: saved.data.name, cidr: saved.data.cidr });
      if (!network) onInserted(saved.data.name, result);
      return result;
    },
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="XSI network" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={onReload} />
      <Section title="XSI Network">
        <div className="form-grid">
          <NameField
            existing={network?.name ?? null}
            registration={form.register('name')}
            help={`Unique name: ${NAME_LENGTH.min}–${NAME_LENGTH.max} letters, digits, '-' or '_'`}
          />
          <InputField
            label="Network (CIDR)"
            required
            autoComplete="off"
            placeholder="192.0.2.0/24"
            registration={form.register('cidr')}
            help={`IPv4 or IPv6 network in CIDR notation, host bits zero. Networks may not overlap; up to ${XSI_NETWORKS_MAX}. Every Target Set address and application server address must lie on one.`}
          />
        </div>
      </Section>
      <FormActions intent={intent} busy={isSubmitting} onCancel={() => onDone(null)} />
    </Form>
  );
}
