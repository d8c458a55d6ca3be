import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, notFound } from '../http/errors.ts';
import { etagOf, requireIfMatch } from '../http/etag.ts';
import { hashPassword } from '../domain/passwords.ts';
import { ROLES, userListSchema, userSchema } from '@ipfe/schema';
import { publicUser, type UserRecord } from '../repositories/users-repository.ts';
import { IF_MATCH_ERRORS } from '../plugins/openapi.ts';

export const userName = z
  .string({ error: 'name is required' })
  .regex(/^[A-Za-z0-9._-]{1,32}$/, { error: "name must be 1–32 letters, digits, '.', '-' or '_'" });
export const password = z
  .string({ error: 'password is required' })
  .min(8, { error: 'password must be at least 8 characters' })
  .max(256, { error: 'password must be at most 256 characters' });
const role = z.enum(ROLES, { error: `role must be one of: ${ROLES.join(', ')}` });

/** What a user's ETag covers: a change of role or password makes older edits stale. */
const etagOfUser = (user: UserRecord) => etagOf([user.role, user.passwordHash, user.updatedAt]);

const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { access: 'admin' as const };
  const tags = ['Users'];
  const params = z.object({ name: userName });
  const users = app.usersRepository;
  const lookup = async (name: string, repository = users) => {
    const user = await repository.find(name);
    if (!user) throw notFound(`User ${name}`);
    return user;
  };

  app.get(
    '/api/users',
    {
      config,
      schema: {
        tags,
        operationId: 'listUsers',
        summary: 'Every user (admin only)',
        response: { 200: userListSchema },
      },
    },
    async () => ({ items: (await users.list()).map(publicUser) }),
  );

  app.get(
    '/api/users/:name',
    {
      config,
      schema: {
        tags,
        operationId: 'getUser',
        summary: 'Read one user (admin only)',
        params,
        errors: ['NOT_FOUND'],
        response: { 200: userSchema },
      },
    },
    async (request, reply) => {
      const user = await lookup(request.params.name);
      return reply.header('etag', etagOfUser(user)).send(publicUser(user));
    },
  );

  app.post(
    '/api/users',
    {
      config,
      schema: {
        tags,
        operationId: 'insertUser',
        summary: 'Insert a user (admin only)',
        errors: ['CONFLICT'],
        body: z.strictObject({ name: userName, password, role }),
        response: { 201: userSchema },
      },
    },
    async (request, reply) => {
      const { name, role: newRole } = request.body;
      const hash = await hashPassword(request.body.password);
      if (!(await users.create(name, newRole, hash))) {
        throw new ApiError('CONFLICT', `User ${name} already exists`, [
          { path: 'name', message: `User ${name} already exists` },
        ]);
      }
      const user = await lookup(name);
      return reply
        .code(201)
        .header('etag', etagOfUser(user))
        .header('location', `/api/users/${name}`)
        .send(publicUser(user));
    },
  );

  app.put(
    '/api/users/:name',
    {
      config,
      schema: {
        tags,
        operationId: 'editUser',
        summary: 'Change role and/or password (If-Match required; admin only)',
        errors: ['NOT_FOUND', ...IF_MATCH_ERRORS, 'LAST_ADMIN'],
        params,
        body: z.strictObject({ role: role.optional(), password: password.optional() }),
        response: { 200: userSchema },
      },
    },
    async (request, reply) => {
      const passwordHash = request.body.password
        ? await hashPassword(request.body.password)
        : undefined;
      const user = await users.transaction(async (tx) => {
        const current = await lookup(request.params.name, tx);
        requireIfMatch(request.headers['if-match'], etagOfUser(current), () => publicUser(current));
        const demotesLastAdmin =
          current.role === 'admin' &&
          request.body.role &&
          request.body.role !== 'admin' &&
          (await tx.countAdmins()) === 1;
        if (demotesLastAdmin) {
          throw new ApiError('LAST_ADMIN', 'The last admin cannot lose the admin role', [
            { path: 'role', message: 'The last admin cannot lose the admin role' },
          ]);
        }
        await tx.update(current.name, { role: request.body.role, passwordHash });
        return lookup(current.name, tx);
      });
      return reply.header('etag', etagOfUser(user)).send(publicUser(user));
    },
  );

  app.delete(
    '/api/users/:name',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteUser',
        summary: 'Delete a user (If-Match required; never the last admin; admin only)',
        errors: ['NOT_FOUND', ...IF_MATCH_ERRORS, 'LAST_ADMIN'],
        params,
      },
    },
    async (request, reply) => {
      await users.transaction(async (tx) => {
        const current = await lookup(request.params.name, tx);
        requireIfMatch(request.headers['if-match'], etagOfUser(current), () => publicUser(current));
        if (current.role === 'admin' && (await tx.countAdmins()) === 1) {
          throw new ApiError('LAST_ADMIN', 'The last admin cannot be deleted');
        }
        await tx.delete(current.name);
      });
      return reply.code(204).send();
    },
  );
};

export default usersRoutes;
