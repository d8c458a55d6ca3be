import { useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { useCreateXsiNetwork } from '@/features/xsi-networks/api/create-xsi-network';
import { useDeleteXsiNetwork } from '@/features/xsi-networks/api/delete-xsi-network';
import { useXsiNetwork } from '@/features/xsi-networks/api/get-xsi-network';
import { useXsiNetworks } from '@/features/xsi-networks/api/get-xsi-networks';
import { useUpdateXsiNetwork } from '@/features/xsi-networks/api/update-xsi-network';
import { XsiNetworkForm } from '@/features/xsi-networks/components/xsi-network-form';
import { XsiNetworksList } from '@/features/xsi-networks/components/xsi-networks-list';
import { canEdit, useUser } from '@/lib/auth';
import { SavedNotice, type SavedState } from './saved-notice';

const TRAIL = ['Network'];
const LIST = '/xsi-networks';
const editPath = (name: string) => `${LIST}/${encodeURIComponent(name)}/edit`;

export function XsiNetworksRoute() {
  const networks = useXsiNetworks();
  const { data: user } = useUser();
  const remove = useDeleteXsiNetwork();
  const [selected, setSelected] = useState<string | null>(null);
  const editor = canEdit(user);
  const current = networks.data?.find((n) => n.name === selected) ?? null;
  return (
    <Page
      trail={TRAIL}
      title="XSI Networks"
      toolbar={
        editor && (
          <ListToolbar
            noun="XSI network"
            selected={current && { key: current.name, label: `XSI network ${current.name}` }}
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
      {networks.isError && <Alert tone="error" title={networks.error.message} />}
      {networks.data ? (
        <XsiNetworksList
          networks={networks.data}
          selected={selected}
          onSelect={editor ? setSelected : undefined}
        />
      ) : (
        !networks.isError && <Loading what="XSI networks" />
      )}
    </Page>
  );
}

export function XsiNetworkInsertRoute() {
  const navigate = useNavigate();
  const create = useCreateXsiNetwork();
  return (
    <Page trail={TRAIL} title="XSI Networks [Insert]">
      <XsiNetworkForm
        network={null}
        save={(body) => create.mutateAsync(body)}
        onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
        onSavedInsert={(name) =>
          void navigate(editPath(name), {
            replace: true,
            state: { saved: `XSI network ${name} saved.` } satisfies SavedState,
          })
        }
        onReload={() => undefined}
      />
    </Page>
  );
}

export function XsiNetworkEditRoute() {
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const network = useXsiNetwork(name);
  const update = useUpdateXsiNetwork();
  const [version, setVersion] = useState(0);
  return (
    <Page trail={TRAIL} title="XSI Networks [Edit]">
      {location.state && <SavedNotice />}
      {network.isError && <Alert tone="error" title={network.error.message} />}
      {network.data ? (
        <XsiNetworkForm
          key={version}
          network={network.data.data}
          save={(body) => update.mutateAsync({ name, data: body, etag: network.data.etag })}
          onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
          onSavedInsert={() => undefined}
          onReload={() => void network.refetch().then(() => setVersion((v) => v + 1))}
        />
      ) : (
        !network.isError && <Loading what={`XSI network ${name}`} />
      )}
    </Page>
  );
}
