import { useId, useState } from 'react';
import { useFormState } from 'react-hook-form';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import {
  FieldMessage,
  Form,
  formSchema,
  SaveFeedback,
  useSave,
  useSchemaForm,
} from '@/components/ui/form';
import { Loading } from '@/components/ui/page';
import { RecordTable, type Column } from '@/components/ui/record-table';
import { Section } from '@/components/ui/section';
import { describeError } from '@/lib/api-client';
import { clock } from '@/lib/time';
import {
  useApiTokens,
  useCreateApiToken,
  useRevokeApiToken,
  type ApiToken,
  type CreatedApiToken,
  type TokenScope,
} from '../api/api-tokens';

const when = (iso: string | null) =>
  iso ? <time dateTime={iso}>{clock(iso)}</time> : <span>never</span>;

/** The secret of a token just created, with the one chance to copy it. */
function NewSecret({ created, onDone }: { created: CreatedApiToken; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser would not copy it: select the field and press Ctrl+C.');
    }
  };
  return (
    <div className="alert alert-success token-new" role="status">
      <p>
        Token <strong>{created.token.name}</strong> created. Copy it now: it is not shown again.
        Scripts send it as <code>Authorization: Bearer</code>; the ipfe CLI reads it from{' '}
        <code>IPFE_TOKEN</code>.
      </p>
      <label htmlFor={id}>Secret of token {created.token.name}</label>
      <input
        id={id}
        className="input token-secret"
        readOnly
        value={created.secret}
        size={created.secret.length}
        onFocus={(event) => event.currentTarget.select()}
      />
      <div className="alert-actions">
        <Button onClick={() => void copy()}>Copy</Button>
        <Button onClick={onDone}>Done</Button>
      </div>
      {copied && <p>{copied}</p>}
    </div>
  );
}

// The API checks the name (its rule is the route's): the form sends what is typed.
const createSchema = formSchema(
  (values: { name: string }) => values,
  z.strictObject({ name: z.string() }),
);

/** A new token: saved as every form is (useSave), its secret then shown once. */
function CreateToken() {
  const id = useId();
  const create = useCreateApiToken();
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const form = useSchemaForm({ schema: createSchema, defaultValues: { name: '' } });
  const { isSubmitting, errors } = useFormState({ control: form.control, name: 'name' });
  const { onSubmit, outcome } = useSave({
    form,
    save: ({ name }) => create.mutateAsync(name),
    place: (path) => (path === 'name' ? path : null),
    what: 'The API token',
    onSaved: (saved) => {
      setCreated(saved.data);
      form.reset({ name: '' });
      return null;
    },
  });
  const error = errors.name?.message;
  return (
    <>
      <Form form={form} onSubmit={onSubmit} label="Create an API token" className="token-form">
        <SaveFeedback outcome={outcome} />
        <label htmlFor={id}>Token name</label>
        <input
          id={id}
          className="input"
          required
          maxLength={64}
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={[`${id}-help`, error && `${id}-error`].filter(Boolean).join(' ')}
          {...form.register('name')}
        />
        <Button type="submit" variant="primary" disabled={isSubmitting}>
          {isSubmitting ? 'Creating…' : 'Create token'}
        </Button>
        <p id={`${id}-help`} className="field-help">
          What the token is for (&quot;gitops pipeline&quot;); it acts with your role.
        </p>
        <FieldMessage id={id} error={error} />
      </Form>
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
    </>
  );
}

function TokenTable({ scope, caption }: { scope: TokenScope; caption: string }) {
  const tokens = useApiTokens(scope);
  const revoke = useRevokeApiToken();
  const [pending, setPending] = useState<ApiToken | null>(null);
  if (tokens.isError) return <Alert tone="error" title={tokens.error.message} />;
  if (!tokens.data) return <Loading what="API tokens" />;
  const label = (t: ApiToken) => (scope === 'own' ? t.name : `${t.name} of ${t.user}`);
  const columns: Column<ApiToken>[] = [
    ...(scope === 'everyone' ? [{ header: 'User', cell: (t: ApiToken) => t.user }] : []),
    { header: 'Name', cell: (t) => t.name },
    { header: 'Created', cell: (t) => when(t.createdAt) },
    { header: 'Last used', cell: (t) => when(t.lastUsedAt) },
    {
      header: 'Actions',
      cell: (t) => (
        <Button
          variant="danger"
          aria-label={`Revoke token ${label(t)}`}
          onClick={() => setPending(t)}
        >
          Revoke
        </Button>
      ),
    },
  ];
  return (
    <>
      <RecordTable
        caption={caption}
        rows={tokens.data}
        rowKey={(t) => String(t.id)}
        rowLabel={(t) => `token ${label(t)}`}
        columns={columns}
        empty={<p>No API token.</p>}
      />
      <ConfirmDialog
        open={pending !== null}
        title={`Revoke token ${pending ? label(pending) : ''}?`}
        confirmLabel="Revoke"
        busy={revoke.isPending}
        error={revoke.error ? `The revoke was refused: ${describeError(revoke.error)}` : undefined}
        onCancel={() => {
          revoke.reset();
          setPending(null);
        }}
        onConfirm={() =>
          pending && revoke.mutate({ id: pending.id, scope }, { onSuccess: () => setPending(null) })
        }
      >
        Scripts that use it are refused from their next request (401 &quot;API token revoked&quot;).
        This cannot be undone.
      </ConfirmDialog>
    </>
  );
}

/**
 * API tokens for scripts and the ipfe CLI: the user's own (create, list, revoke) and, for admins,
 * every user's. A secret is shown once, when its token is created.
 */
export function ApiTokens({ everyone }: { everyone: boolean }) {
  return (
    <div className="api-tokens">
      <Section title="Your API tokens" note="For scripts and the ipfe CLI">
        <CreateToken />
        <TokenTable scope="own" caption="Your API tokens" />
      </Section>
      {everyone && (
        <Section title="Every user's API tokens">
          <TokenTable scope="everyone" caption="Every user's API tokens" />
        </Section>
      )}
    </div>
  );
}
