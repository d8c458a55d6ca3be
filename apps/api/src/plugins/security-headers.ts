import helmet, { type HelmetOptions } from 'helmet';
import fp from 'fastify-plugin';

/**
 * Security headers on every answer, and a strict Content-Security-Policy: scripts, styles and
 * connections only from this origin, no inline script, no framing. The API documentation page
 * (Swagger UI) brings its own policy for its inline parts.
 */
const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  // HSTS only makes sense behind TLS; the deployment decides (IPFE_SECURE_COOKIES / TLS).
  strictTransportSecurity: false,
};

export default fp(
  async (app) => {
    // Helmet's middleware, built once: @fastify/helmet builds it (and parses the policy again) on
    // every request, which cost more than a session look-up. The same headers, set the same way.
    const setHeaders = helmet(OPTIONS);
    app.addHook('onRequest', (request, reply, done) =>
      setHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)),
    );
  },
  { name: 'security-headers' },
);
