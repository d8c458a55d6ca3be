import { z } from 'zod';

/**
 * The source product's IPFE measurements (issue 27 item 4) under our names, each with the
 * source's name, what it counts and of what. Per Target Set (summed over its TSAs) or per server of
 * a Target Set. `accounted`: a packet or byte measurement, which stops while Options › Accounting
 * is off; connection counts (TxReject) go on, since the Status page and the alarms read them.
 */
export const MEASUREMENTS = {
  rxBytes: {
    source: 'RxTsaBytes',
    label: 'Bytes received',
    unit: 'bytes',
    of: 'targetSet',
    accounted: true,
    meaning: 'bytes received for the Target Set’s addresses (TSAs)',
  },
  rxSctpBytes: {
    source: 'RxTsaBytesSctp',
    label: 'SCTP bytes received',
    unit: 'bytes',
    of: 'targetSet',
    accounted: true,
    meaning: 'SCTP bytes received for the Target Set’s addresses',
  },
  rejected: {
    source: 'TxReject',
    label: 'Refused',
    unit: 'connections',
    of: 'targetSet',
    accounted: false,
    meaning: 'new connections refused because no server could take them',
  },
  unexpectedTcp: {
    source: 'TsaUnexpctedTcp',
    label: 'Unexpected TCP packets',
    unit: 'packets',
    of: 'targetSet',
    accounted: true,
    meaning:
      'TCP packets to a TSA that belong to no known connection and do not open one, or that its Target Set does not carry',
  },
  unexpectedSctp: {
    source: 'TsaUnexpctedSctp',
    label: 'Unexpected SCTP packets',
    unit: 'packets',
    of: 'targetSet',
    accounted: true,
    meaning:
      'SCTP packets to a TSA that belong to no known association and do not open one, or that its Target Set does not carry',
  },
  txBytes: {
    source: 'TxAsBytes',
    label: 'Bytes sent to the server',
    unit: 'bytes',
    of: 'server',
    accounted: true,
    meaning: 'bytes sent to the application server for the Target Set',
  },
} as const;

export type MeasurementName = keyof typeof MEASUREMENTS;
export const MEASUREMENT_NAMES = Object.keys(MEASUREMENTS) as MeasurementName[];
/** The measurements of a Target Set itself; `txBytes` is of each of its servers. */
export const TARGET_SET_MEASUREMENTS = [
  'rxBytes',
  'rxSctpBytes',
  'rejected',
  'unexpectedTcp',
  'unexpectedSctp',
] as const;
export type TargetSetMeasurement = (typeof TARGET_SET_MEASUREMENTS)[number];
export const measurementNameSchema = z.enum(
  MEASUREMENT_NAMES as [MeasurementName, ...MeasurementName[]],
);

/** A count since the agent started; null: its data path cannot count it ("not counted"). */
const count = z.number().nonnegative().nullable();

/**
 * What an agent reports of the measurements in its status: totals since it started, per Target
 * Set it plans and per server of it. While `accounting` is false the packet and byte totals stand
 * still (they are what was counted before).
 */
export const agentMeasurementsSchema = z.object({
  accounting: z.boolean(),
  targetSets: z.array(
    z.object({
      number: z.int(),
      rxBytes: count,
      rxSctpBytes: count,
      rejected: count,
      unexpectedTcp: count,
      unexpectedSctp: count,
      servers: z.array(z.object({ address: z.string(), txBytes: count })),
    }),
  ),
});
export type AgentMeasurements = z.output<typeof agentMeasurementsSchema>;
