import {
  NAME_LENGTH,
  PEER_NODE_GROUP_MEMBERS,
  peerNodeGroupSchema,
  type PeerNodeGroup,
} from '@ipfe/schema';
import {
  Form,
  FormActions,
  formSchema,
  NameField,
  SaveFeedback,
  TextAreaField,
  usePageSave,
  useSchemaForm,
  type EditPage,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import type { PeerNodeGroupView } from '../api/get-peer-node-groups';

interface PeerNodeGroupFormValues {
  name: string;
  /** One address or CIDR per line (commas work too). */
  members: string;
}

export const membersOf = (text: string) => text.split(/[\s,]+/).filter((m) => m !== '');

const toBody = (v: PeerNodeGroupFormValues): PeerNodeGroup => ({
  name: v.name,
  members: membersOf(v.members),
});
const schema = formSchema(toBody, peerNodeGroupSchema);
const place = (path: string) =>
  path === 'name' ? path : path.startsWith('members') ? 'members' : null;

/** Every message of the members, each with the line it is about ("Line 2: …"). */
function memberMessages(error: unknown, lines: string[]): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const record = error as Record<string, { message?: string } | string | undefined>;
  const out: string[] = [];
  if (typeof record.message === 'string') out.push(record.message);
  for (const [key, value] of Object.entries(record)) {
    if (!/^\d+$/.test(key) || !value || typeof value !== 'object' || !value.message) continue;
    out.push(`Line ${Number(key) + 1} (${lines[Number(key)] ?? ''}): ${value.message}`);
  }
  return out.length > 0 ? out.join('; ') : undefined;
}

export function PeerNodeGroupForm({
  group,
  ...page
}: { group: PeerNodeGroup | null } & EditPage<
  PeerNodeGroup,
  Versioned<PeerNodeGroupView>,
  string
>) {
  const valuesOf = (g: PeerNodeGroup | null) => ({
    name: g?.name ?? '',
    members: g?.members.join('\n') ?? '',
  });
  const form = useSchemaForm({ schema, defaultValues: valuesOf(group) });
  const { onSubmit, outcome, intent } = usePageSave({
    form,
    page,
    inserting: !group,
    what: 'The peer node group',
    place,
    title: (saved) => `Peer node group ${saved.name}`,
    keyOf: (saved) => saved.name,
    valuesOf,
  });
  const help = `IPv4 or IPv6 addresses or CIDRs, one per line; ${PEER_NODE_GROUP_MEMBERS.min}–${PEER_NODE_GROUP_MEMBERS.max} members. A connection belongs to the first group (by name) with a member matching its source address.`;
  return (
    <Form form={form} onSubmit={onSubmit} label="Peer node group" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={page.onReload} />
      <Section title="Peer Node Group">
        <div className="form-grid">
          <NameField
            existing={group?.name ?? null}
            registration={form.register('name')}
            help={`Unique name: ${NAME_LENGTH.min}–${NAME_LENGTH.max} letters, digits, '-' or '_'`}
          />
          <TextAreaField
            label="Members"
            required
            rows={6}
            registration={form.register('members')}
            wordError={(error) => memberMessages(error, membersOf(form.getValues('members')))}
            help={help}
          />
        </div>
      </Section>
      <FormActions intent={intent} onCancel={() => page.onDone(null)} />
    </Form>
  );
}
