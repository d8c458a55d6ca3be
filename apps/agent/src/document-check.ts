import {
  configDocumentSchema,
  fieldErrorsOf,
  issueText,
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

const ENTITIES: Record<string, { label: string; key: 'number' | 'name' }> = {
  targetSets: { label: 'Target Set', key: 'number' },
  xsiNetworks: { label: 'XSI network', key: 'name' },
  appServers: { label: 'Application server', key: 'name' },
  peerNodeGroups: { label: 'Peer node group', key: 'name' },
};

/**
 * A refused document's field error as an operator reads it in alarm 5100: the entity as the OAM
 * names it ("Target Set 4", "Options") and the field as the GUI does, not the document's path
 * ("config.targetSets.0.servers.0.weight"). A path it cannot name is kept as it is.
 */
export function rejectionText(body: unknown, field: FieldError): string {
  const match = /^config\.(\w+)(?:\.(\d+))?\.(.+)$/.exec(field.path);
  const [, list = '', index, rest = ''] = match ?? [];
  if (list === 'options' && index === undefined) {
    return `Options: ${issueText({ path: rest, message: field.message })}`;
  }
  const entity = ENTITIES[list];
  if (!entity || index === undefined) return `${field.path}: ${field.message}`;
  const config = (body as { config?: Record<string, unknown> } | null)?.config;
  const item = (config?.[list] as Record<string, unknown>[] | undefined)?.[Number(index)];
  const id = item?.[entity.key];
  const name =
    typeof id === 'string' || typeof id === 'number' ? String(id) : `#${Number(index) + 1}`;
  return `${entity.label} ${name}: ${issueText({ path: rest, message: field.message })}`;
}
