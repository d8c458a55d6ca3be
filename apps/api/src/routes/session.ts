import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionAnswerSchema, sessionViewSchema } from '@ipfe/schema';

const sessionRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Session'];

  app.post(
    '/api/session',
    {
      config: { access: 'public' },
      schema: {
        tags,
        operationId: 'login',
        errors: ['UNAUTHENTICATED', 'RATE_LIMITED'],
        summary: 'Log in; answers the csrfToken to send as x-csrf-token on every change',
        body: z.strictObject({
          username: z
            .string({ error: 'username is required' })
            .min(1, { error: 'username is required' })
            .max(64),
          password: z
            .string({ error: 'password is required' })
            .min(1, { error: 'password is required' })
            .max(256),
        }),
        response: { 200: sessionViewSchema },
      },
    },
    async (request) => {
      const user = await app.login(request, request.body.username, request.body.password);
      return {
        user: { name: user.name, role: user.role },
        csrfToken: request.session.get('csrfToken')!,
      };
    },
  );

  // Public: "nobody is logged in" is an answer, not an error (the GUI asks this before every
  // login page, and a 401 would stand in the browser's console as a failure).
  app.get(
    '/api/session',
    {
      config: { access: 'public' },
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'Who is logged in, with the csrfToken of their login; user null when nobody is',
        response: { 200: sessionAnswerSchema },
      },
    },
    async (request) =>
      request.user
        ? {
            user: { name: request.user.name, role: request.user.role },
            csrfToken: request.session.get('csrfToken')!,
          }
        : { user: null },
  );

  app.delete(
    '/api/session',
    { config: { access: 'viewer' }, schema: { tags, operationId: 'logout', summary: 'Log out' } },
    async (request, reply) => {
      await request.session.destroy();
      return reply.code(204).send();
    },
  );
};

export default sessionRoutes;
