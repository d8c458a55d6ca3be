import { useState } from 'react';
import { useFormState } from 'react-hook-form';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Form, InputField, useSchemaForm } from '@/components/ui/form';
import { describeError } from '@/lib/api-client';
import { useLogin, type SessionUser } from '@/lib/auth';

const loginSchema = z.object({
  username: z.string().trim().min(1, { error: 'User name is required' }),
  password: z.string().min(1, { error: 'Password is required' }),
});

export function LoginForm({ onSuccess }: { onSuccess: (user: SessionUser) => void }) {
  const login = useLogin();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useSchemaForm({
    schema: loginSchema,
    defaultValues: { username: '', password: '' },
  });
  const { isSubmitting } = useFormState({ control: form.control });
  return (
    <Form
      form={form}
      label="Log in"
      className="login-form"
      onSubmit={async (credentials) => {
        setFailure(null);
        try {
          onSuccess(await login.mutateAsync(credentials));
        } catch (error) {
          setFailure(describeError(error));
        }
      }}
    >
      {failure && <Alert tone="error" title={failure} />}
      <div className="form-grid form-grid-narrow">
        <InputField
          label="User name"
          autoComplete="username"
          registration={form.register('username')}
        />
        <InputField
          label="Password"
          type="password"
          autoComplete="current-password"
          registration={form.register('password')}
        />
      </div>
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={isSubmitting}>
          Log in
        </Button>
      </div>
    </Form>
  );
}
