import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';

/**
 * Security headers on every answer, and a strict Content-Security-Policy: scripts, styles and
 * connections only from this origin, no inline script, no framing. The API documentation page
 * (Swagger UI) brings its own policy for its inline parts.
 */
export default fp(
  async (app) => {
    await app.register(helmet, {
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
    });
  },
  { name: 'security-headers' },
);
