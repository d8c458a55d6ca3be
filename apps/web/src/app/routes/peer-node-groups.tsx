import { useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { useCreatePeerNodeGroup } from '@/features/peer-node-groups/api/create-peer-node-group';
import { useDeletePeerNodeGroup } from '@/features/peer-node-groups/api/delete-peer-node-group';
import { usePeerNodeGroup } from '@/features/peer-node-groups/api/get-peer-node-group';
import { usePeerNodeGroups } from '@/features/peer-node-groups/api/get-peer-node-groups';
import { useUpdatePeerNodeGroup } from '@/features/peer-node-groups/api/update-peer-node-group';
import { PeerNodeGroupForm } from '@/features/peer-node-groups/components/peer-node-group-form';
import { PeerNodeGroupsList } from '@/features/peer-node-groups/components/peer-node-groups-list';
import { canEdit, useUser } from '@/lib/auth';
import { SavedNotice, type SavedState } from './saved-notice';

const TRAIL = ['Network'];
const LIST = '/peer-node-groups';
const editPath = (name: string) => `${LIST}/${encodeURIComponent(name)}/edit`;

export function PeerNodeGroupsRoute() {
  const groups = usePeerNodeGroups();
  const { data: user } = useUser();
  const remove = useDeletePeerNodeGroup();
  const [selected, setSelected] = useState<string | null>(null);
  const editor = canEdit(user);
  const current = groups.data?.find((n) => n.name === selected) ?? null;
  return (
    <Page
      trail={TRAIL}
      title="Peer Node Groups"
      toolbar={
        editor && (
          <ListToolbar
            noun="Peer node group"
            selected={current && { key: current.name, label: `peer node group ${current.name}` }}
            insert={[{ to: `${LIST}/insert`, label: 'Insert' }]}
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
      {groups.isError && <Alert tone="error" title={groups.error.message} />}
      {groups.data ? (
        <PeerNodeGroupsList
          groups={groups.data}
          selected={selected}
          onSelect={editor ? setSelected : undefined}
        />
      ) : (
        !groups.isError && <Loading what="peer node groups" />
      )}
    </Page>
  );
}

export function PeerNodeGroupInsertRoute() {
  const navigate = useNavigate();
  const create = useCreatePeerNodeGroup();
  return (
    <Page trail={TRAIL} title="Peer Node Groups [Insert]">
      <PeerNodeGroupForm
        group={null}
        save={(body) => create.mutateAsync(body)}
        onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
        onSavedInsert={(name) =>
          void navigate(editPath(name), {
            replace: true,
            state: { saved: `Peer node group ${name} saved.` } satisfies SavedState,
          })
        }
        onReload={() => undefined}
      />
    </Page>
  );
}

export function PeerNodeGroupEditRoute() {
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const group = usePeerNodeGroup(name);
  const update = useUpdatePeerNodeGroup();
  const [version, setVersion] = useState(0);
  return (
    <Page trail={TRAIL} title="Peer Node Groups [Edit]">
      {location.state && <SavedNotice />}
      {group.isError && <Alert tone="error" title={group.error.message} />}
      {group.data ? (
        <PeerNodeGroupForm
          key={version}
          group={group.data.data}
          save={(body) => update.mutateAsync({ name, data: body, etag: group.data.etag })}
          onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
          onSavedInsert={() => undefined}
          onReload={() => void group.refetch().then(() => setVersion((v) => v + 1))}
        />
      ) : (
        !group.isError && <Loading what={`peer node group ${name}`} />
      )}
    </Page>
  );
}
