import { Link } from 'react-router';
import { useActiveAlarms } from '../api/get-alarms';
import { alarmSummaryOf } from './alarm-summary';

/**
 * The header's active alarms, on every page: "33 active alarms · 1 critical", in the colour of the
 * worst severity, linking to the Alarms page. Quiet when there are none.
 */
export function AlarmBadge() {
  const alarms = useActiveAlarms();
  if (!alarms.data) return null;
  const summary = alarmSummaryOf(alarms.data.active);
  if (!summary) {
    return (
      <Link to="/alarms" className="alarm-badge alarm-none">
        No active alarms
      </Link>
    );
  }
  const noun = summary.count === 1 ? 'alarm' : 'alarms';
  return (
    <Link to="/alarms" className={`alarm-badge sev-${summary.severity}`}>
      {summary.count} active {noun}{' '}
      <span className="alarm-worst">
        · {summary.atSeverity} {summary.severity}
      </span>
    </Link>
  );
}
