import { startTransition, useEffect, useState } from 'react';

/**
 * `value` as of the frame after the one that paints the current render: what a keystroke changes
 * itself (the digit in its box) is painted first, and what follows from it is rendered after that
 * paint. React's useDeferredValue renders the follow-up before the browser has painted the
 * keystroke, so on a long IP list the keystroke waited for it.
 *
 * A change of `layout` (e.g. the number of rows) is taken at once: a value one frame behind a row
 * added or removed would show against the wrong row.
 */
export function useAfterPaint<T>(value: T, layout: unknown = null): T {
  const [shown, setShown] = useState({ value, layout });
  const current = Object.is(shown.layout, layout) ? shown : { value, layout };
  if (current !== shown) setShown(current);
  useEffect(() => {
    if (Object.is(current.value, value)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      // The task after the frame: the frame's paint is done.
      timer = setTimeout(() => startTransition(() => setShown({ value, layout })));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [current, value, layout]);
  return current.value;
}
