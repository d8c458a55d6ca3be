import fp from 'fastify-plugin';
import secureJsonParse from 'secure-json-parse';
import { ApiError } from '../http/errors.ts';

/**
 * JSON request bodies, parsed as Fastify's own parser does (secure-json-parse, prototype keys
 * refused) but saying which refusal it was: Fastify answers a refused `__proto__` key as "not
 * valid JSON", which sends an operator looking for a syntax error that is not there.
 */
export default fp(
  async (app) => {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      const text = body as string;
      if (text === '') {
        return done(
          new ApiError('INVALID_JSON', 'The body is empty but Content-Type is application/json'),
          undefined,
        );
      }
      try {
        done(
          null,
          secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' }),
        );
      } catch (err) {
        const prototypeKey = err instanceof SyntaxError && /forbidden prototype/.test(err.message);
        done(
          new ApiError(
            'INVALID_JSON',
            prototypeKey
              ? 'The body has a "__proto__" or "constructor.prototype" key, which is refused (it could change the prototype of objects)'
              : 'The body is not valid JSON',
          ),
          undefined,
        );
      }
    });
  },
  { name: 'json-body' },
);
