import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** The OpenAPI document generated from the route schemas, at /api/openapi.json and /api/docs. */
export default fp(
  async (app) => {
    await app.register(fastifySwagger, {
      openapi: {
        info: {
          title: 'IPFE OAM API',
          description:
            'Configuration of an IP Front End. Log in with POST /api/session; send the csrfToken as x-csrf-token and the ETag as If-Match on every change.',
          version: '0.1.0',
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });
    app.get(
      '/api/openapi.json',
      { config: { access: 'public' }, schema: { hide: true } },
      async () => app.swagger(),
    );
  },
  { name: 'openapi' },
);
