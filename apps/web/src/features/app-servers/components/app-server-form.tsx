import {
  APP_SERVER_NAME_LENGTH,
  INITIATOR_PORTS,
  MESSAGES,
  appServerInputSchema,
  type AppServer,
  type AppServerInput,
} from '@ipfe/schema';
import {
  Form,
  FormActions,
  formSchema,
  InputField,
  NameField,
  ReadOnlyField,
  SaveFeedback,
  usePageSave,
  useSchemaForm,
  type EditPage,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import type { AppServerView } from '../api/get-app-servers';
import { formatRange } from './app-servers-list';

interface AppServerFormValues {
  name: string;
  /** The primary address and, for SCTP multihoming, a secondary one (empty: none). */
  addresses: [string, string];
}

export function toAppServerBody(values: AppServerFormValues): AppServerInput {
  const [first, second] = values.addresses;
  return {
    name: values.name,
    addresses: second.trim() === '' && first.trim() !== '' ? [first] : [first, second],
  };
}

const schema = formSchema(toAppServerBody, appServerInputSchema);

function place(path: string): string | null {
  if (path === 'name') return path;
  if (path === 'addresses.0' || path === 'addresses') return 'addresses.0';
  if (path === 'addresses.1') return path;
  return null;
}

const valuesOf = (server: AppServer | null): AppServerFormValues => ({
  name: server?.name ?? '',
  addresses: [server?.addresses[0] ?? '', server?.addresses[1] ?? ''],
});

/** Insert (no `server`) or Edit an application server; its port range is the system's. */
export function AppServerForm({
  server,
  ...page
}: { server: AppServer | null } & EditPage<AppServerInput, Versioned<AppServerView>, string>) {
  const form = useSchemaForm({ schema, defaultValues: valuesOf(server) });
  const { onSubmit, outcome, intent } = usePageSave({
    form,
    page,
    inserting: !server,
    what: 'The application server',
    place,
    title: (saved) => `Application server ${saved.name}`,
    keyOf: (saved) => saved.name,
    valuesOf,
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="Application server" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={page.onReload} />
      <Section title="Application Server">
        <div className="form-grid">
          <NameField
            existing={server?.name ?? null}
            registration={form.register('name')}
            help={`Unique, hostname-like: ${APP_SERVER_NAME_LENGTH.min}–${APP_SERVER_NAME_LENGTH.max} letters, digits, '-' and '.'`}
          />
          <InputField
            label="Address"
            required
            autoComplete="off"
            registration={form.register('addresses.0')}
            errorAlsoOf="addresses"
            help="IPv4 or IPv6 address on an XSI network, unique across all servers"
          />
          <InputField
            label="Secondary address"
            autoComplete="off"
            registration={form.register('addresses.1')}
            help="Optional: a second address for SCTP multihoming (used as a Target Set's secondary IP address)"
          />
          <ReadOnlyField
            label="Initiator Port Range"
            value={server ? formatRange(server.initiatorPortRange) : 'Allocated on save'}
            help={`${MESSAGES.readOnly}. The system gives each server its own ${INITIATOR_PORTS.sliceSize}-port slice of ${INITIATOR_PORTS.start}–${INITIATOR_PORTS.end}, kept for life.`}
          />
        </div>
      </Section>
      <FormActions intent={intent} onCancel={() => page.onDone(null)} />
    </Form>
  );
}
