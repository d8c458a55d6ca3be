/**
 * How one CSV cell becomes a value of our schema and back. Reading never judges ranges: it turns
 * the text into the type the schema expects (or leaves it as text, so the schema's own message
 * names the field); only spellings the schema cannot see (Yes/No, the source's enum labels) are
 * judged here.
 */
export type CellRead = { value: unknown } | { problem: string };

export interface CellKind {
  /** The cell as the schema should see it; `undefined` (an empty cell) takes the field's default. */
  read(text: string, label: string): CellRead;
  format(value: unknown): string;
}

const empty = (text: string) => text.trim() === '';

export const text: CellKind = {
  read: (t) => ({ value: empty(t) ? undefined : t }),
  format: (v) => (v === null || v === undefined ? '' : String(v)),
};

/** Descriptions: an empty cell is the empty description, kept as it is (spaces are allowed). */
export const freeText: CellKind = {
  read: (t) => ({ value: t }),
  format: (v) => (typeof v === 'string' ? v : ''),
};

export const int: CellKind = {
  // A cell that is not an integer goes to the schema as text, which says what the field takes.
  read: (t) => ({ value: empty(t) ? undefined : /^\s*-?\d{1,15}\s*$/.test(t) ? Number(t) : t }),
  format: (v) => (typeof v === 'number' ? String(v) : ''),
};

const YES = new Set(['yes', 'y', 'true', '1', 'enabled', 'on']);
const NO = new Set(['no', 'n', 'false', '0', 'disabled', 'off']);

export const flag: CellKind = {
  read(t, label) {
    if (empty(t)) return { value: undefined };
    const word = t.trim().toLowerCase();
    if (YES.has(word)) return { value: true };
    if (NO.has(word)) return { value: false };
    return { problem: `${label} must be Yes or No, not "${t}"` };
  },
  format: (v) => (v === true ? 'Yes' : v === false ? 'No' : ''),
};

/**
 * One of a fixed set, written with the source GUI's label and read case-insensitively from
 * either the label or our schema's own word.
 */
export function choice(labels: Record<string, string>): CellKind {
  const byWord = new Map<string, string>();
  for (const [ours, label] of Object.entries(labels)) {
    byWord.set(ours.toLowerCase(), ours);
    byWord.set(label.toLowerCase(), ours);
  }
  return {
    read(t, label) {
      if (empty(t)) return { value: undefined };
      const ours = byWord.get(t.trim().toLowerCase());
      if (ours !== undefined) return { value: ours };
      return {
        problem: `${label} must be one of: ${Object.values(labels).join(', ')}, not "${t}"`,
      };
    },
    format: (v) => (typeof v === 'string' ? (labels[v] ?? v) : ''),
  };
}

/** Several values in one cell, separated by spaces (or semicolons). */
export function list(item: CellKind): CellKind {
  return {
    read(t, label) {
      if (empty(t)) return { value: undefined };
      const values: unknown[] = [];
      for (const part of t.trim().split(/[\s;]+/)) {
        const read = item.read(part, label);
        if ('problem' in read) return read;
        values.push(read.value);
      }
      return { value: values };
    },
    format: (v) => (Array.isArray(v) ? v.map((x) => item.format(x)).join(' ') : ''),
  };
}

/** An Initiator Port Range as the source GUI shows it: "16384-16895". */
export const portRange: CellKind = {
  read(t, label) {
    if (empty(t)) return { value: undefined };
    const match = /^\s*(\d{1,6})\s*-\s*(\d{1,6})\s*$/.exec(t);
    if (!match) return { problem: `${label} must be written as start-end (e.g. 16384-16895)` };
    return { value: { start: Number(match[1]), end: Number(match[2]) } };
  },
  format: (v) => {
    const range = v as { start: number; end: number } | undefined;
    return range ? `${range.start}-${range.end}` : '';
  },
};

/**
 * A BGP peer as one word, its AS number then its address: `65001@192.0.2.1` (ours, decision 018).
 * Parts that are not a number go to the schema as text, which names the field.
 */
export const bgpPeer: CellKind = {
  read(t, label) {
    const match = /^\s*([^@\s]*)@([^@\s]*)\s*$/.exec(t);
    if (!match)
      return { problem: `${label} must be written as ASN@address (e.g. 65001@192.0.2.1)` };
    const asn = /^\d{1,15}$/.test(match[1]!) ? Number(match[1]) : match[1];
    return { value: { asn, address: match[2] } };
  },
  format: (v) => {
    const peer = v as { asn: number; address: string } | undefined;
    return peer ? `${peer.asn}@${peer.address}` : '';
  },
};
