import type { z } from 'zod';
import { fieldLabel, MESSAGES } from './messages.ts';

export interface FieldError {
  path: string;
  message: string;
}

/** Fields that the system fills in; sending one is an attempt to change what cannot be changed. */
const DERIVED_KEYS = new Set(['initiatorPortRange', 'standbyIpfe', 'appServer', 'chancePct']);

/**
 * Zod issues as `{path, message}` pairs with dot paths; an unknown key is reported at its own path.
 * A field that fails two checks with the same wording (an empty name is both too short and not
 * matching the pattern) is reported once.
 */
export function fieldErrorsOf(error: z.ZodError, prefix: (string | number)[] = []): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const push = (path: string, message: string) => {
    const key = `${path}\n${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, message });
  };
  for (const issue of error.issues) {
    const base = [...prefix, ...issue.path.map((p) => String(p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        push(
          [...base, key].join('.'),
          DERIVED_KEYS.has(key) ? MESSAGES.readOnly : `${key} is not a field here`,
        );
      }
      continue;
    }
    const message =
      issue.code === 'invalid_type' && issue.message.endsWith('received undefined')
        ? `${describe(issue.path.map((p) => String(p)))} is required`
        : issue.message;
    push(base.join('.'), message);
  }
  return out;
}

/** The field as the GUI names it ("Primary Public IP Address"), else its key. */
function describe(path: string[]): string {
  const last = path[path.length - 1];
  return fieldLabel(path.join('.')) ?? (last === undefined ? 'A value' : last);
}
