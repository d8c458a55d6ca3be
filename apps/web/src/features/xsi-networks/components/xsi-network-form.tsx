import { NAME_LENGTH, XSI_NETWORKS_MAX, xsiNetworkSchema, type XsiNetwork } from '@ipfe/schema';
import {
  Form,
  FormActions,
  formSchema,
  InputField,
  NameField,
  SaveFeedback,
  usePageSave,
  type EditPage,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
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
  ...page
}: { network: XsiNetwork | null } & EditPage<XsiNetwork, Versioned<XsiNetworkView>, string>) {
  const form = useSchemaForm({
    schema,
    // The form's own fields only: the answer's `warnings` is no field, and the schema is strict.
    defaultValues: { name: network?.name ?? '', cidr: network?.cidr ?? '' },
  });
  const { onSubmit, outcome, intent } = usePageSave({
    form,
    page,
    inserting: !network,
    what: 'The XSI network',
    place,
    title: (saved) => `XSI network ${saved.name}`,
    keyOf: (saved) => saved.name,
    valuesOf: (saved) => ({ name: saved.name, cidr: saved.cidr }),
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="XSI network" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={page.onReload} />
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
      <FormActions intent={intent} onCancel={() => page.onDone(null)} />
    </Form>
  );
}
