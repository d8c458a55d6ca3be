import { z } from 'zod';
import {
  Form,
  FormActions,
  InputField,
  RadioGroupField,
  ReadOnlyField,
  SaveFeedback,
  useSave,
  useSchemaForm,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import type { Role } from '@/lib/auth';
import type { User } from '../api/get-users';

// The API words these rules in apps/api/src/routes/users.ts; they are not in @ipfe/schema.
const name = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,32}$/, { error: "name must be 1–32 letters, digits, '.', '-' or '_'" });
const password = z
  .string()
  .min(8, { error: 'password must be at least 8 characters' })
  .max(256, { error: 'password must be at most 256 characters' });
const role = z.enum(['admin', 'operator', 'viewer']);

const insertSchema = z.object({ name, password, role });
/** On Edit an empty password keeps the current one. */
const editSchema = z.object({
  name: z.string(),
  password: z.string().refine((v) => v === '' || password.safeParse(v).success, {
    error: 'password must be at least 8 characters (or empty, to keep it)',
  }),
  role,
});

export interface UserBody {
  name: string;
  password: string;
  role: Role;
}

const ROLES = [
  { value: 'viewer', label: 'Viewer (reads only)' },
  { value: 'operator', label: 'Operator (changes the configuration)' },
  { value: 'admin', label: 'Admin (also manages users)' },
];

export function UserForm({
  user,
  etag,
  save,
  onDone,
  onReload,
}: {
  user: User | null;
  /** Edit: the ETag of the version the form is opened with. */
  etag?: string | null;
  save: (body: UserBody, etag: string | null) => Promise<Versioned<User>>;
  onDone: (saved?: string) => void;
  onReload: () => void;
}) {
  const form = useSchemaForm({
    schema: user ? editSchema : insertSchema,
    defaultValues: { name: user?.name ?? '', password: '', role: user?.role ?? 'viewer' },
  });
  const { onSubmit, outcome, intent } = useSave({
    form,
    etag,
    save,
    place: (path) => (['name', 'password', 'role'].includes(path) ? path : null),
    what: 'The user',
    onSaved: (saved, how) => {
      const message = `User ${saved.data.name} saved.`;
      if (how === 'ok') {
        onDone(message);
        return null;
      }
      form.reset({ name: saved.data.name, password: '', role: saved.data.role });
      return { kind: 'saved', message, warnings: [] };
    },
  });
  return (
    <Form form={form} onSubmit={onSubmit} label="User" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={onReload} />
      <Section title="User">
        <div className="form-grid">
          {user ? (
            <ReadOnlyField label="Name" value={user.name} help="This field cannot be changed" />
          ) : (
            <InputField
              label="Name"
              required
              autoComplete="off"
              registration={form.register('name')}
              help="1–32 letters, digits, '.', '-' or '_'"
            />
          )}
          <InputField
            label={user ? 'New password' : 'Password'}
            type="password"
            required={!user}
            autoComplete="new-password"
            registration={form.register('password')}
            help={user ? 'Leave empty to keep the current password.' : 'At least 8 characters.'}
          />
          <RadioGroupField
            label="Role"
            registration={form.register('role')}
            options={ROLES}
            help="The last admin cannot lose the admin role."
          />
        </div>
      </Section>
      <FormActions intent={intent} onCancel={() => onDone()} />
    </Form>
  );
}
