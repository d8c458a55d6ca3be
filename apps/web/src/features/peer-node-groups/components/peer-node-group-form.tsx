import {
  NAME_LENGTH,
  PEER_NODE_GROUP_MEMBERS,
  peerNodeGroupSchema,
  type PeerNodeGroup,
} from '@ipfe/schema';
import { useFormState } from 'react-hook-form';
import {
  Form,
  FormActions,
  formSchema,
  NameField,
  SaveFeedback,
  TextAreaField,
  useSave,
  type SaveOutcome,
  useSchemaForm,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import { savedAs } from '@/lib/commits';
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
  save,
  onDone,
  onInserted,
  onReload,
}: {
  group: PeerNodeGroup | null;
  save: (body: PeerNodeGroup) => Promise<Versioned<PeerNodeGroupView>>;
  /** Back to the list: after OK with what was saved, after Cancel with nothing. */
  onDone: (outcome: SaveOutcome | null) => void;
  /** After Apply on Insert: edited from here on. */
  onInserted: (name: string, outcome: SaveOutcome) => void;
  onReload: () => void;
}) {
  const valuesOf = (g: PeerNodeGroup | null) => ({
    name: g?.name ?? '',
    members: g?.members.join('\n') ?? '',
  });
  const form = useSchemaForm({ schema, defaultValues: valuesOf(group) });
  const { isSubmitting } = useFormState({ control: form.control });
  const { onSubmit, outcome, intent } = useSave({
    form,
    save,
    place,
    what: 'The peer node group',
    onSaved: (saved, how) => {
      const result: SaveOutcome = {
        kind: 'saved',
        message: savedAs(`Peer node group ${saved.data.name}`, saved),
        warnings: saved.data.warnings,
      };
      if (how === 'ok') {
        onDone(result);
        return null;
      }
      form.reset(valuesOf(saved.data));
      if (!group) onInserted(saved.data.name, result);
      return result;
    },
  });
  const help = `IPv4 or IPv6 addresses or CIDRs, one per line; ${PEER_NODE_GROUP_MEMBERS.min}–${PEER_NODE_GROUP_MEMBERS.max} members. A connection belongs to the first group (by name) with a member matching its source address.`;
  return (
    <Form form={form} onSubmit={onSubmit} label="Peer node group" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={onReload} />
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
      <FormActions intent={intent} busy={isSubmitting} onCancel={() => onDone(null)} />
    </Form>
  );
}
