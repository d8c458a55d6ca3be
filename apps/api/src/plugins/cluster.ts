import fp from 'fastify-plugin';
import { Cluster, type ClusterOptions } from '../services/cluster.ts';

declare module 'fastify' {
  interface FastifyInstance {
    cluster: Cluster;
  }
}

/**
 * This OAM among the others of its store: who leads (decision 022). Joins once the app is ready,
 * so that the first OAM of a cluster leads before it answers its first request; leaves on close.
 */
export default fp(
  async (app, opts: ClusterOptions) => {
    const cluster = new Cluster(app.store, app.log.child({ component: 'cluster' }), opts);
    app.decorate('cluster', cluster);
    app.addHook('onListen', async () => {
      const address = app.server.address();
      if (address && typeof address === 'object') {
        const host = address.address.includes(':') ? `[${address.address}]` : address.address;
        cluster.address = `${host}:${address.port}`;
      }
    });
    app.addHook('onReady', async () => cluster.start());
    app.addHook('onClose', async () => cluster.close());
  },
  { name: 'cluster', dependencies: ['db'] },
);
