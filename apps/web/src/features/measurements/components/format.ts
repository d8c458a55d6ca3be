import { MEASUREMENTS, type MeasurementName } from '@ipfe/schema';

/** "Bytes received (RxTsaBytes)": our label and the source product's name, as operators know it. */
export const measurementTitle = (name: MeasurementName) =>
  `${MEASUREMENTS[name].label} (${MEASUREMENTS[name].source})`;

export const NOT_COUNTED = 'not counted';

const significant = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const BYTE_UNITS = ['B/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s'];
const RATE_UNIT = { packets: 'packets/s', connections: 'refusals/s' } as const;
const TOTAL_UNIT = { bytes: 'bytes', packets: 'packets', connections: 'refused' } as const;

/** A rate per second in the measurement's unit: "1.25 kB/s", "3 packets/s", "0.1 refusals/s". */
export function formatRate(name: MeasurementName, perSecond: number | null): string {
  if (perSecond === null) return NOT_COUNTED;
  const { unit } = MEASUREMENTS[name];
  if (unit !== 'bytes') return `${significant.format(perSecond)} ${RATE_UNIT[unit]}`;
  let value = perSecond;
  let step = 0;
  while (value >= 1000 && step < BYTE_UNITS.length - 1) {
    value /= 1000;
    step++;
  }
  return `${significant.format(value)} ${BYTE_UNITS[step]}`;
}

/** A total since the agents started, whole: "50,000 bytes", "3 refused". */
export function formatTotal(name: MeasurementName, total: number | null): string {
  if (total === null) return NOT_COUNTED;
  return `${whole.format(total)} ${TOTAL_UNIT[MEASUREMENTS[name].unit]}`;
}
