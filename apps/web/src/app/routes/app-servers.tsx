import { useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { useCreateAppServer } from '@/features/app-servers/api/create-app-server';
import { useDeleteAppServer } from '@/features/app-servers/api/delete-app-server';
import { useAppServer } from '@/features/app-servers/api/get-app-server';
import { useAppServers } from '@/features/app-servers/api/get-app-servers';
import { useUpdateAppServer } from '@/features/app-servers/api/update-app-server';
import { AppServerForm } from '@/features/app-servers/components/app-server-form';
import { AppServersList } from '@/features/app-servers/components/app-servers-list';
import { canEdit, useUser } from '@/lib/auth';
import { SavedNotice, type SavedState } from './saved-notice';

const TRAIL = ['Network'];
const LIST = '/app-servers';
const editPath = (name: string) => `${LIST}/${encodeURIComponent(name)}/edit`;

export function AppServersRoute() {
  const servers = useAppServers();
  const { data: user } = useUser();
  const remove = useDeleteAppServer();
  const [selected, setSelected] = useState<string | null>(null);
  const editor = canEdit(user);
  const current = servers.data?.find((n) => n.name === selected) ?? null;
  return (
    <Page
      trail={TRAIL}
      title="Application Servers"
      toolbar={
        editor && (
          <ListToolbar
            noun="Application server"
            selected={current && { key: current.name, label: `application server ${current.name}` }}
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
      {servers.isError && <Alert tone="error" title={servers.error.message} />}
      {servers.data ? (
        <AppServersList
          servers={servers.data}
          selected={selected}
          onSelect={editor ? setSelected : undefined}
        />
      ) : (
        !servers.isError && <Loading what="application servers" />
      )}
    </Page>
  );
}

export function AppServerInsertRoute() {
  const navigate = useNavigate();
  const create = useCreateAppServer();
  return (
    <Page trail={TRAIL} title="Application Servers [Insert]">
      <AppServerForm
        server={null}
        save={(body) => create.mutateAsync(body)}
        onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
        onSavedInsert={(name) =>
          void navigate(editPath(name), {
            replace: true,
            state: { saved: `Application server ${name} saved.` } satisfies SavedState,
          })
        }
        onReload={() => undefined}
      />
    </Page>
  );
}

export function AppServerEditRoute() {
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const server = useAppServer(name);
  const update = useUpdateAppServer();
  const [version, setVersion] = useState(0);
  return (
    <Page trail={TRAIL} title="Application Servers [Edit]">
      {location.state && <SavedNotice />}
      {server.isError && <Alert tone="error" title={server.error.message} />}
      {server.data ? (
        <AppServerForm
          key={version}
          server={server.data.data}
          save={(body) => update.mutateAsync({ name, data: body, etag: server.data.etag })}
          onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
          onSavedInsert={() => undefined}
          onReload={() => void server.refetch().then(() => setVersion((v) => v + 1))}
        />
      ) : (
        !server.isError && <Loading what={`application server ${name}`} />
      )}
    </Page>
  );
}
