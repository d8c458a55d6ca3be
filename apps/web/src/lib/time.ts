/** "3 s ago", "4 min ago", "2 h ago", "5 d ago" from an ISO time, against `now` (ms). */
export function ago(iso: string | null, now: number = Date.now()): string {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return iso;
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return `${s} s ago`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/**
 * An ISO time as the operator reads it: "2026-11-29 20:33:45" in the browser's time zone. The one
 * way every page writes a date and time (Status, Alarms, Revisions, Users, Audit log).
 */
export function clock(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A span of time between two ISO times: "42 s", "3 min 5 s", "2 h 10 min". */
export function duration(fromIso: string, toIso: string | null, now: number = Date.now()): string {
  const to = toIso ? Date.parse(toIso) : now;
  const s = Math.max(0, Math.round((to - Date.parse(fromIso)) / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${s % 60} s`;
  const h = Math.floor(min / 60);
  return `${h} h ${min % 60} min`;
}
