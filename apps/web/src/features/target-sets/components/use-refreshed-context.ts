import { useRef, useState } from 'react';
import type { TargetSetContext } from './form-model';

/**
 * The rest of the configuration that the form checks against. Another client may have changed it
 * since the page opened (an admin configures BGP): a save that the checks refuse against what the
 * page holds reads it afresh first (`refreshIfRefused`), so that a refusal is said only when the
 * configuration read afresh refuses it too. What was read afresh holds until the page is given a
 * newer configuration.
 */
export function useRefreshedContext(
  held: TargetSetContext,
  refresh: (() => Promise<TargetSetContext>) | undefined,
) {
  const [fresh, setFresh] = useState<{ over: TargetSetContext; context: TargetSetContext } | null>(
    null,
  );
  const context = fresh?.over === held ? fresh.context : held;
  // What the checks read: a save goes on from a refresh before the page renders it.
  const checked = useRef(context);
  checked.current = context;
  const [refreshing, setRefreshing] = useState(false);

  /**
   * Reads the configuration afresh when `refused` refuses the save against the held one: the
   * read, to be awaited before the save goes on; else null, and the save goes on at once (in the
   * submit event itself, so that the page shows at once that it is saving).
   */
  const refreshIfRefused = (
    refused: (context: TargetSetContext) => boolean,
  ): Promise<void> | null => {
    if (!refresh || !refused(checked.current)) return null;
    setRefreshing(true);
    return refresh()
      .then((current) => {
        checked.current = current;
        setFresh({ over: held, context: current });
      })
      .catch(() => {
        // Unreadable now: the checks keep what the page holds, and the refusal stands.
      })
      .finally(() => setRefreshing(false));
  };
  return { context, checked, refreshing, refreshIfRefused };
}
