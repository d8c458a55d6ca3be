import pretty from 'pino-pretty';

/**
 * Readable log lines for a terminal: one short line per request (`→ GET /api/… (req-1)` and
 * `← 200 in 3 ms (req-1)`) instead of the request and response objects. Synchronous and in this
 * thread (no transport worker), so the lines written just before process.exit get out.
 */
export function prettyLogStream() {
  return pretty({
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: (log, messageKey) => {
      const req = log.req as { method?: string; url?: string } | undefined;
      const res = log.res as { statusCode?: number } | undefined;
      const id = log.reqId ? ` (${String(log.reqId)})` : '';
      if (req?.method) return `→ ${req.method} ${req.url ?? ''}${id}`;
      if (res?.statusCode !== undefined) {
        const ms =
          typeof log.responseTime === 'number' ? ` in ${Math.round(log.responseTime)} ms` : '';
        return `← ${res.statusCode}${ms}${id}`;
      }
      return `${String(log[messageKey] ?? '')}${id}`;
    },
  });
}
