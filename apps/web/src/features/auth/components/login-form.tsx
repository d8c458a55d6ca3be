import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { describedBy, FieldRow } from '@/components/ui/form/field-row';
import { focusFirstError } from '@/components/ui/form/focus-first-error';
import { describeError } from '@/lib/api-client';
import { useLogin, type SessionUser } from '@/lib/auth';

type Credentials = { username: string; password: string };
type Field = keyof Credentials;

/** The login's two checks. The form kit (react-hook-form, zod) is left to the later pages' chunk. */
const problemOf: Record<Field, (value: string) => string | undefined> = {
  username: (value) => (value.trim() === '' ? 'User name is required' : undefined),
  password: (value) => (value === '' ? 'Password is required' : undefined),
};

/**
 * The login form. Like every form of the GUI, a field's error shows once the field is left (or
 * the form sent), then follows the value as it changes.
 */
export function LoginForm({ onSuccess }: { onSuccess: (user: SessionUser) => void }) {
  const login = useLogin();
  const form = useRef<HTMLFormElement>(null);
  const focusAtSubmit = useRef<Element | null>(null);
  const [values, setValues] = useState<Credentials>({ username: '', password: '' });
  const [shown, setShown] = useState<Record<Field, boolean>>({ username: false, password: false });
  const [failure, setFailure] = useState<string | null>(null);
  const [attempts, setAttempts] = useState(0);
  const errorOf = (field: Field) => (shown[field] ? problemOf[field](values[field]) : undefined);

  // After a refused attempt, on the first field in error (or the failure's message).
  useEffect(() => {
    if (attempts > 0 && form.current) focusFirstError(form.current, focusAtSubmit.current);
  }, [attempts]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    focusAtSubmit.current = document.activeElement;
    setShown({ username: true, password: true });
    setFailure(null);
    if (problemOf.username(values.username) || problemOf.password(values.password)) {
      setAttempts((n) => n + 1);
      return;
    }
    try {
      onSuccess(await login.mutateAsync({ ...values, username: values.username.trim() }));
    } catch (error) {
      setFailure(describeError(error));
      setAttempts((n) => n + 1);
    }
  };

  const field = (name: Field) => ({
    value: values[name],
    error: errorOf(name),
    onChange: (value: string) => setValues((v) => ({ ...v, [name]: value })),
    onBlur: () => setShown((s) => ({ ...s, [name]: true })),
  });

  return (
    <form
      ref={form}
      noValidate
      aria-label="Log in"
      className="login-form"
      onSubmit={(event) => void submit(event)}
    >
      {failure && <Alert tone="error" title={failure} />}
      <div className="form-grid form-grid-narrow">
        <LoginField
          label="User name"
          name="username"
          autoComplete="username"
          {...field('username')}
        />
        <LoginField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          {...field('password')}
        />
      </div>
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={login.isPending}>
          Log in
        </Button>
      </div>
    </form>
  );
}

function LoginField({
  label,
  error,
  onChange,
  ...input
}: {
  label: string;
  name: Field;
  value: string;
  error: string | undefined;
  type?: string;
  autoComplete: string;
  onChange: (value: string) => void;
  onBlur: () => void;
}) {
  const id = useId();
  return (
    <FieldRow id={id} label={label} error={error}>
      <input
        id={id}
        className="input"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, { error })}
        onChange={(event) => onChange(event.target.value)}
        {...input}
      />
    </FieldRow>
  );
}
