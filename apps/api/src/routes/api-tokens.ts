import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiTokenListSchema, createdApiTokenSchema } from '@ipfe/schema';
import { ApiError, notFound } from '../http/errors.ts';

const tokenName = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, { error: 'name is required' })
  .max(64, { error: 'name must be at most 64 characters' })
  .regex(/^[\p{L}\p{N} ._:@/-]+$/u, {
    error: "name may hold letters, digits, spaces and '.', '_', ':', '@', '/', '-'",
  });

const tokenId = z.coerce
  .number({ error: 'id is a whole number' })
  .int({ error: 'id is a whole number' })
  .min(1, { error: 'id is a whole number from 1' })
  .max(Number.MAX_SAFE_INTEGER);

/**
 * API tokens: every user creates, lists and revokes their own (any role: a viewer's token reads);
 * an admin lists and revokes everyone's. A token never creates a token: a leaked one cannot
 * outlive its revocation by minting another.
 */
const apiTokenRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['API tokens'];
  const own = { access: 'viewer' as const };
  const tokens = app.apiTokensRepository;

  app.get(
    '/api/users/me/tokens',
    {
      config: own,
      schema: {
        tags,
        operationId: 'listOwnApiTokens',
        summary: 'Your API tokens (never their secrets)',
        response: { 200: apiTokenListSchema },
      },
    },
    async (request) => ({ items: await tokens.list(request.user!.name) }),
  );

  app.post(
    '/api/users/me/tokens',
    {
      config: own,
      schema: {
        tags,
        operationId: 'createOwnApiToken',
        summary:
          'Create an API token with your role; the answer is the only time its secret is shown (not with a token)',
        body: z.strictObject({ name: tokenName }),
        response: { 201: createdApiTokenSchema },
      },
    },
    async (request, reply) => {
      if (request.apiToken) {
        throw new ApiError(
          'FORBIDDEN',
          'An API token cannot create tokens: log in with your password to create one',
        );
      }
      const created = await tokens.create(request.user!.name, request.body.name);
      return reply
        .code(201)
        .header('location', `/api/users/me/tokens/${created.token.id}`)
        .send(created);
    },
  );

  app.delete(
    '/api/users/me/tokens/:id',
    {
      config: own,
      schema: {
        tags,
        operationId: 'revokeOwnApiToken',
        summary: 'Revoke one of your API tokens (at once: its next request answers 401)',
        errors: ['NOT_FOUND'],
        params: z.object({ id: tokenId }),
      },
    },
    async (request, reply) => {
      if (!(await tokens.revoke(request.params.id, request.user!.name))) {
        throw notFound(`Your API token ${request.params.id}`);
      }
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/tokens',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'listApiTokens',
        summary: "Every user's API tokens (admin only)",
        response: { 200: apiTokenListSchema },
      },
    },
    async () => ({ items: await tokens.list() }),
  );

  app.delete(
    '/api/tokens/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'revokeApiToken',
        summary: "Revoke any user's API token (admin only)",
        errors: ['NOT_FOUND'],
        params: z.object({ id: tokenId }),
      },
    },
    async (request, reply) => {
      if (!(await tokens.revoke(request.params.id)))
        throw notFound(`API token ${request.params.id}`);
      return reply.code(204).send();
    },
  );
};

export default apiTokenRoutes;
