import { z } from 'zod';
import {
  addressSpellingProblem,
  canonicalCidr,
  canonicalIp,
  cidrNetwork,
  isCidr,
  isIpAddress,
} from './net.ts';
import { PORT } from './limits.ts';

/** The type error of a field: "X is required" when absent, else the field's own message. */
export function typeError(label: string, message: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? `${label} is required` : message;
}

/** A whole number in [min, max], with messages that name the field and the range. */
export function intInRange(label: string, range: { min: number; max: number }) {
  const message = `${label} must be a whole number from ${range.min} to ${range.max}`;
  return z
    .int({ error: typeError(label, message) })
    .min(range.min, { error: message })
    .max(range.max, {
      error: message,
    });
}

export function port(label: string) {
  return intInRange(label, PORT);
}

export function flag(label: string) {
  return z.boolean({ error: typeError(label, `${label} must be true or false`) });
}

export function choice<const T extends readonly [string, ...string[]]>(label: string, values: T) {
  return z.enum(values, {
    error: typeError(label, `${label} must be one of: ${values.join(', ')}`),
  });
}

const ADDRESS_TEXT_MAX = 64;

/**
 * An IPv4 or IPv6 address, stored in one canonical spelling. A message quotes what was typed, never
 * the canonical spelling of it.
 */
export function ipAddress(label: string) {
  const message = `${label} must be an IPv4 or IPv6 address`;
  return z
    .string({ error: typeError(label, message) })
    .trim()
    .max(ADDRESS_TEXT_MAX, { error: message })
    .check((ctx) => {
      const problem = addressSpellingProblem(ctx.value);
      if (problem || !isIpAddress(ctx.value)) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: problem ? `${label} ${problem}` : message,
          abort: true,
        });
      }
    })
    .overwrite(canonicalIp);
}

/** A network in CIDR notation whose host bits are zero. */
export function cidr(label: string) {
  return z
    .string({
      error: typeError(label, `${label} must be an IPv4 or IPv6 network in CIDR notation`),
    })
    .trim()
    .max(ADDRESS_TEXT_MAX + 4, {
      error: `${label} must be an IPv4 or IPv6 network in CIDR notation`,
    })
    .refine(isCidr, { error: `${label} must be an IPv4 or IPv6 network in CIDR notation` })
    .overwrite(canonicalCidr)
    .check((ctx) => {
      const network = cidrNetwork(ctx.value);
      if (network && network !== ctx.value) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: `${label} has host bits set: did you mean ${network}?`,
        });
      }
    });
}

/** An address or a CIDR (peer node group members). */
export function addressOrCidr(label: string) {
  const message = `${label} must be an IPv4 or IPv6 address or CIDR`;
  return z
    .string({ error: typeError(label, message) })
    .trim()
    .max(ADDRESS_TEXT_MAX + 4, { error: message })
    .refine((v) => (v.includes('/') ? isCidr(v) : isIpAddress(v)), { error: message })
    .overwrite((v) => (v.includes('/') ? canonicalCidr(v) : canonicalIp(v)));
}

/** Names of XSI networks and peer node groups: letters, digits, '-' and '_'. */
export function simpleName(label: string, length: { min: number; max: number }) {
  const message = `${label} must be ${length.min}–${length.max} letters, digits, '-' or '_'`;
  return z
    .string({ error: typeError(label, message) })
    .trim()
    .min(length.min, { error: message })
    .max(length.max, { error: message })
    .regex(/^[A-Za-z0-9_-]+$/, { error: message });
}

/** Hostname-like names (application servers): labels of letters, digits and '-', joined by dots. */
export function hostName(label: string, length: { min: number; max: number }) {
  const message = `${label} must be hostname-like: ${length.min}–${length.max} letters, digits, '-' and '.', not starting or ending with '-' or '.'`;
  return z
    .string({ error: typeError(label, message) })
    .trim()
    .min(length.min, { error: message })
    .max(length.max, { error: message })
    .regex(
      /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
      {
        error: message,
      },
    );
}
