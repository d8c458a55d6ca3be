import { existsSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import { ApiError } from '../http/errors.ts';

const pathOf = (url: string) => url.split('?')[0] ?? url;

/**
 * Serves the built GUI at `/` when it exists. Any GET outside /api/ that names no file gets
 * index.html, so that deep links work on reload; everything else unknown is a JSON 404.
 */
export default fp(
  async (app, opts: { root?: string }) => {
    const root = opts.root && existsSync(opts.root) ? opts.root : null;
    if (opts.root && !root) app.log.warn('GUI not built: run `npm run build -w @ipfe/web`');
    if (root) {
      await app.register(fastifyStatic, {
        root,
        prefix: '/',
        wildcard: false,
        index: 'index.html',
      });
    }
    app.setNotFoundHandler((request, reply) => {
      const path = pathOf(request.url);
      const isPage =
        request.method === 'GET' && !path.startsWith('/api/') && !/\.[a-z0-9]+$/i.test(path);
      if (root && isPage) return reply.type('text/html').sendFile('index.html');
      const error = new ApiError('NOT_FOUND', `No route ${request.method} ${path}`);
      return reply.code(404).send(error.toBody());
    });
  },
  { name: 'web', dependencies: ['errors'] },
);
