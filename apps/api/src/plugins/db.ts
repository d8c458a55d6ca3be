import fp from 'fastify-plugin';
import { Store, type StoreLocation } from '../store/store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
  }
}

export default fp(
  async (app, opts: { location: StoreLocation }) => {
    const store = await Store.open(opts.location);
    app.decorate('store', store);
    app.addHook('onClose', async () => store.close());
  },
  { name: 'db' },
);
