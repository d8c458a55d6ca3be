import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import { useCreateUser } from '@/features/users/api/create-user';
import { useDeleteUser } from '@/features/users/api/delete-user';
import { useUserAccount } from '@/features/users/api/get-user';
import { useUsers } from '@/features/users/api/get-users';
import { useUpdateUser } from '@/features/users/api/update-user';
import { UserForm } from '@/features/users/components/user-form';
import { UsersList } from '@/features/users/components/users-list';
import { ApiTokens } from '@/features/users/components/api-tokens';
import { useUser } from '@/lib/auth';
import { SavedNotice } from './saved-notice';

const TRAIL = ['Administration'];
const LIST = '/users';
const editPath = (name: string) => `${LIST}/${encodeURIComponent(name)}/edit`;

export function UsersRoute() {
  const users = useUsers();
  const remove = useDeleteUser();
  const [selected, setSelected] = useState<string | null>(null);
  const current = users.data?.find((u) => u.name === selected) ?? null;
  return (
    <Page
      trail={TRAIL}
      title="Users"
      toolbar={
        <ListToolbar
          noun="User"
          selected={current && { key: current.name, label: `user ${current.name}` }}
          insert={[{ to: `${LIST}/insert`, label: 'Insert' }]}
          editPath={editPath}
          onDelete={async (name) => {
            await remove.mutateAsync(name);
            setSelected(null);
          }}
        />
      }
    >
      <SavedNotice />
      {users.isError && <Alert tone="error" title={users.error.message} />}
      {users.data ? (
        <UsersList users={users.data} selected={selected} onSelect={setSelected} />
      ) : (
        !users.isError && <Loading what="users" />
      )}
      <ApiTokens everyone />
    </Page>
  );
}

/** Every user's own API tokens (the Users page shows admins everyone's). */
export function ApiTokensRoute() {
  const { data: user } = useUser();
  return (
    <Page trail={['Account']} title="API tokens">
      <ApiTokens everyone={user?.role === 'admin'} />
    </Page>
  );
}

export function UserInsertRoute() {
  const navigate = useNavigate();
  const create = useCreateUser();
  return (
    <Page trail={TRAIL} title="Users [Insert]">
      <UserForm
        user={null}
        save={(body) => create.mutateAsync(body)}
        onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
        onReload={() => undefined}
      />
    </Page>
  );
}

export function UserEditRoute() {
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const user = useUserAccount(name);
  const update = useUpdateUser();
  const [version, setVersion] = useState(0);
  return (
    <Page trail={TRAIL} title="Users [Edit]">
      {user.isError && <Alert tone="error" title={user.error.message} />}
      {user.data ? (
        <UserForm
          key={version}
          user={user.data.data}
          etag={user.data.etag}
          save={(body, etag) =>
            update.mutateAsync({
              name,
              data: { role: body.role, ...(body.password ? { password: body.password } : {}) },
              etag,
            })
          }
          onDone={(saved) => void navigate(LIST, { state: saved ? { saved } : null })}
          onReload={() => void user.refetch().then(() => setVersion((v) => v + 1))}
        />
      ) : (
        !user.isError && <Loading what={`user ${name}`} />
      )}
    </Page>
  );
}
