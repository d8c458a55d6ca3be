import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

/** The largest CSV file an import takes: a full configuration is well under 100 KiB. */
export const CSV_MAX_BYTES = 1024 * 1024;

const tooLarge = () =>
  new ApiError(
    'PAYLOAD_TOO_LARGE',
    `The CSV file is larger than ${CSV_MAX_BYTES / 1024 / 1024} MiB (${CSV_MAX_BYTES} bytes), the most an import takes`,
  );

/**
 * text/csv (and text/plain) bodies as one string, within this plugin's routes only. The size is
 * checked here rather than by Fastify's bodyLimit so that the refusal names the limit.
 */
export function acceptCsvBodies(app: FastifyInstance) {
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['text/csv', 'text/plain'],
    async (request: FastifyRequest, payload: AsyncIterable<Buffer>) => {
      const declared = Number(request.headers['content-length']);
      if (declared > CSV_MAX_BYTES) throw tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of payload) {
        size += chunk.length;
        if (size > CSV_MAX_BYTES) throw tooLarge();
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    },
  );
}
