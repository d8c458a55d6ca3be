import { z } from 'zod';
import { checkConfiguration } from './rules.ts';
import {
  deriveConfiguration,
  documentConfigShape,
  underiveConfiguration,
  type DocumentConfig,
} from './derive.ts';

export const DOCUMENT_FORMAT_VERSION = 1;

/**
 * What a revision is and what the agents receive: the whole configuration with derived fields,
 * the revision number, and the SHA-256 of the canonical JSON of `config`.
 */
export const configDocumentSchema = z
  .strictObject({
    formatVersion: z.literal(DOCUMENT_FORMAT_VERSION, {
      error: `formatVersion must be ${DOCUMENT_FORMAT_VERSION}`,
    }),
    revision: z.int({ error: 'revision must be a whole number' }).min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: 'sha256 must be 64 hex digits' }),
    config: documentConfigShape,
  })
  .superRefine((doc, ctx) => {
    const stored = underiveConfiguration(doc.config);
    for (const issue of checkConfiguration(stored)) {
      if (issue.severity !== 'error') continue;
      ctx.addIssue({
        code: 'custom',
        path: ['config', ...issue.path.split('.')],
        message: issue.message,
      });
    }
    const expected = deriveConfiguration(stored);
    doc.config.targetSets.forEach((ts, i) => {
      const want = expected.targetSets.find((t) => t.number === ts.number);
      if (JSON.stringify(want) !== JSON.stringify(ts)) {
        ctx.addIssue({
          code: 'custom',
          path: ['config', 'targetSets', i],
          message: `Target Set ${ts.number}: derived fields do not match the configuration`,
        });
      }
    });
  });

export type ConfigDocument = z.output<typeof configDocumentSchema>;
export type { DocumentConfig };
