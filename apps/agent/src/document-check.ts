import {
  configDocumentSchema,
  fieldErrorsOf,
  type ConfigDocument,
  type FieldError,
} from '@ipfe/schema';
import { digestOf } from '@ipfe/schema/digest';

/** The shared schema's verdict on a pushed document, plus its digest. */
export function checkDocument(
  value: unknown,
): { ok: true; document: ConfigDocument } | { ok: false; fields: FieldError[] } {
  const parsed = configDocumentSchema.safeParse(value);
  if (!parsed.success) return { ok: false, fields: fieldErrorsOf(parsed.error) };
  const digest = digestOf(parsed.data.config);
  if (digest !== parsed.data.sha256) {
    return {
      ok: false,
      fields: [
        { path: 'sha256', message: `does not match the configuration (its SHA-256 is ${digest})` },
      ],
    };
  }
  return { ok: true, document: parsed.data };
}
