/**
 * IP addresses as four 32-bit words, so that connection keys are numbers, not strings. IPv4 is
 * stored as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so one key space holds both families.
 */

/** Words of an address: [0] is the most significant. */
export type IpWords = Uint32Array;

export function newIpWords(): IpWords {
  return new Uint32Array(4);
}

/** A dotted quad ("10.0.0.1") as an unsigned 32-bit number; -1 when `text` is not one. */
export function parseIpv4(text: string): number {
  return parseDottedQuad(text, 0, text.length);
}

function parseDottedQuad(text: string, start: number, end: number): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let lead = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d >>> 0 <= 9) {
      if (digits === 0) lead = d;
      part = part * 10 + d;
      digits++;
    } else if (d === -2 && dots < 3 && validPart(part, digits, lead)) {
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  return dots === 3 && validPart(part, digits, lead) ? value * 256 + part : -1;
}

/** 1–3 digits, at most 255, no leading zero. */
function validPart(part: number, digits: number, lead: number): boolean {
  return digits > 0 && digits <= 3 && part <= 255 && (lead !== 0 || digits === 1);
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const groups = new Uint16Array(8);
const expanded = new Uint16Array(8);

/** Parses an IPv6 address (with `::` and an optional trailing dotted quad); no zone ids. */
function parseIpv6(text: string, out: IpWords): boolean {
  const length = text.length;
  let count = 0; // groups written
  let gap = -1; // index in `groups` where `::` stands
  let i = 0;
  if (length < 2) return false;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
    if (i === length) {
      out.fill(0);
      return true;
    }
  }
  while (i < length) {
    let value = 0;
    let digits = 0;
    const groupStart = i;
    while (i < length) {
      const h = hexValue(text.charCodeAt(i));
      if (h < 0) break;
      value = value * 16 + h;
      digits++;
      i++;
    }
    if (i < length && text.charCodeAt(i) === 46) {
      // A trailing dotted quad fills the last two groups.
      if (count > 6) return false;
      const v4 = parseDottedQuad(text, groupStart, length);
      if (v4 < 0) return false;
      groups[count++] = Math.floor(v4 / 65536);
      groups[count++] = v4 % 65536;
      i = length;
      break;
    }
    if (digits === 0 || digits > 4 || count === 8) return false;
    groups[count++] = value;
    if (i === length) break;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    if (i < length && text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
      if (i === length) break;
    } else if (i === length) {
      return false; // a single trailing ':'
    }
  }
  if (gap < 0 ? count !== 8 : count > 7) return false;
  if (gap < 0) {
    expanded.set(groups);
  } else {
    expanded.fill(0);
    expanded.set(groups.subarray(0, gap), 0);
    expanded.set(groups.subarray(gap, count), 8 - (count - gap));
  }
  for (let w = 0; w < 4; w++) {
    out[w] = ((expanded[2 * w] ?? 0) * 65536 + (expanded[2 * w + 1] ?? 0)) >>> 0;
  }
  return true;
}

/**
 * Parses an IPv4 or IPv6 address into `out` (IPv4 as ::ffff:a.b.c.d); false when `text` is
 * neither. No allocation on the IPv4 path, which is the hot one.
 */
export function parseIp(text: string, out: IpWords): boolean {
  const v4 = parseDottedQuad(text, 0, text.length);
  if (v4 >= 0) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0xffff;
    out[3] = v4;
    return true;
  }
  return parseIpv6(text, out);
}

/** Whether the first `prefix` bits of `a` and `b` agree (`prefix` counted on the 128-bit form). */
export function samePrefix(a: IpWords, b: IpWords, prefix: number): boolean {
  for (let w = 0; w < 4 && prefix > 0; w++, prefix -= 32) {
    const x = (a[w] ?? 0) ^ (b[w] ?? 0);
    if (prefix >= 32) {
      if (x !== 0) return false;
    } else if (x >>> (32 - prefix) !== 0) {
      return false;
    }
  }
  return true;
}

/** Whether the words hold an IPv4 address (stored as ::ffff:a.b.c.d). */
export function isIpv4Mapped(words: IpWords): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}
