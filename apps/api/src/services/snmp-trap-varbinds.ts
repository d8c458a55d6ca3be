import snmp from 'net-snmp';
import { currentAlarm } from '@ipfe/schema';
import type { AlarmEvent } from './alarm-mirror.ts';

/**
 * The OIDs of deploy/snmp/IPFE-OAM-MIB.txt. 32473 is IANA's enterprise number for documentation
 * (RFC 5612): a placeholder until the product's own enterprise number is registered (decision 017).
 */
export const IPFE_OAM_MIB = '1.3.6.1.4.1.32473.1';
export const NOTIFICATIONS = {
  raised: `${IPFE_OAM_MIB}.0.1`,
  cleared: `${IPFE_OAM_MIB}.0.2`,
} as const;
const OBJECTS = `${IPFE_OAM_MIB}.1`;
export const OBJECT_OIDS = {
  ipfeAlarmId: `${OBJECTS}.1.0`,
  ipfeAlarmNumber: `${OBJECTS}.2.0`,
  ipfeAlarmName: `${OBJECTS}.3.0`,
  ipfeAlarmSeverity: `${OBJECTS}.4.0`,
  ipfeAlarmIpfe: `${OBJECTS}.5.0`,
  ipfeAlarmTargetSet: `${OBJECTS}.6.0`,
  ipfeAlarmServer: `${OBJECTS}.7.0`,
  ipfeAlarmText: `${OBJECTS}.8.0`,
  ipfeAlarmRaisedAt: `${OBJECTS}.9.0`,
  ipfeAlarmClearedAt: `${OBJECTS}.10.0`,
} as const;

/** ITU-T X.733 perceived severities, as in the MIB's IpfeAlarmSeverity. */
const SEVERITIES: Record<string, number> = { critical: 3, major: 4, minor: 5, warning: 6 };
const INDETERMINATE = 2;

/** SnmpAdminString and DisplayString hold at most 255 octets; a longer text is cut at a character. */
function octets(text: string, max = 255): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  let end = Math.min(bytes.length, max);
  // Never cut inside a character: back off while the first octet left out continues one.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** SNMPv2-TC DateAndTime, 11 octets, in UTC. */
export function dateAndTime(iso: string): Buffer {
  const d = new Date(iso);
  const b = Buffer.alloc(11);
  b.writeUInt16BE(d.getUTCFullYear(), 0);
  b[2] = d.getUTCMonth() + 1;
  b[3] = d.getUTCDate();
  b[4] = d.getUTCHours();
  b[5] = d.getUTCMinutes();
  b[6] = d.getUTCSeconds();
  b[7] = Math.floor(d.getUTCMilliseconds() / 100);
  b[8] = '+'.charCodeAt(0);
  return b;
}

/**
 * The notification OID and the varbinds of one alarm raised or cleared. An event queued by an
 * earlier release carries that release's number: it goes out as the alarm is numbered now.
 */
export function trapOf(event: AlarmEvent): { oid: string; varbinds: snmp.Varbind[] } {
  const kind = event.kind;
  const alarm = currentAlarm(event.alarm);
  const { OctetString, Gauge32, Integer } = snmp.ObjectType;
  const varbinds: snmp.Varbind[] = [
    { oid: OBJECT_OIDS.ipfeAlarmId, type: Gauge32, value: alarm.id },
    { oid: OBJECT_OIDS.ipfeAlarmNumber, type: Gauge32, value: alarm.code },
    { oid: OBJECT_OIDS.ipfeAlarmName, type: OctetString, value: octets(alarm.name) },
    {
      oid: OBJECT_OIDS.ipfeAlarmSeverity,
      type: Integer,
      value: SEVERITIES[alarm.severity] ?? INDETERMINATE,
    },
    { oid: OBJECT_OIDS.ipfeAlarmIpfe, type: OctetString, value: octets(alarm.slot) },
    { oid: OBJECT_OIDS.ipfeAlarmTargetSet, type: Gauge32, value: alarm.targetSet ?? 0 },
    { oid: OBJECT_OIDS.ipfeAlarmServer, type: OctetString, value: octets(alarm.server ?? '') },
    { oid: OBJECT_OIDS.ipfeAlarmText, type: OctetString, value: octets(alarm.text) },
    { oid: OBJECT_OIDS.ipfeAlarmRaisedAt, type: OctetString, value: dateAndTime(alarm.raisedAt) },
  ];
  if (kind === 'cleared' && alarm.clearedAt) {
    varbinds.push({
      oid: OBJECT_OIDS.ipfeAlarmClearedAt,
      type: OctetString,
      value: dateAndTime(alarm.clearedAt),
    });
  }
  return { oid: NOTIFICATIONS[kind], varbinds };
}
