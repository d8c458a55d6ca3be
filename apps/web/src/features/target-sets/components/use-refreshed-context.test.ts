import { act, renderHook } from '@testing-library/react';
import { optionsSchema } from '@ipfe/schema';
import { describe, expect, it, vi } from 'vitest';
import { context } from '@/testing/fixtures';
import type { TargetSetContext } from './form-model';
import { useRefreshedContext } from './use-refreshed-context';

const withBgp = (ctx: TargetSetContext): TargetSetContext => ({
  ...ctx,
  options: optionsSchema.parse({
    ...ctx.options,
    bgp: { asn: 65010, peers: [{ address: '192.168.10.254', asn: 65000 }] },
  }),
});

describe('the configuration the Target Set form checks against', () => {
  it('reads it afresh only for a save the checks refuse, and holds what it read', async () => {
    const held = context();
    const fresh = withBgp(held);
    const refresh = vi.fn(async () => fresh);
    const { result, rerender } = renderHook(
      ({ page }: { page: TargetSetContext }) => useRefreshedContext(page, refresh),
      { initialProps: { page: held } },
    );
    expect(result.current.refreshIfRefused(() => false)).toBeNull();
    expect(refresh).not.toHaveBeenCalled();

    const refused = vi.fn((ctx: TargetSetContext) => ctx.options.bgp === null);
    await act(() => result.current.refreshIfRefused(refused));
    expect(refused).toHaveBeenCalledWith(held);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(result.current.context).toBe(fresh);
    expect(result.current.checked.current).toBe(fresh);
    expect(result.current.refreshIfRefused(refused)).toBeNull();

    // The page's own newer configuration wins over what was read afresh.
    const newer = context({ editing: 1 });
    rerender({ page: newer });
    expect(result.current.context).toBe(newer);
  });

  it('is refreshing while it reads, and keeps what the page holds when the read fails', async () => {
    const held = context();
    let fail: (reason: Error) => void = () => undefined;
    const refresh = vi.fn(() => new Promise<TargetSetContext>((_, reject) => (fail = reject)));
    const { result } = renderHook(() => useRefreshedContext(held, refresh));
    let reading: Promise<void> | null = null;
    act(() => {
      reading = result.current.refreshIfRefused(() => true);
    });
    expect(result.current.refreshing).toBe(true);
    await act(async () => {
      fail(new Error('The OAM server cannot be reached'));
      await reading;
    });
    expect(result.current.refreshing).toBe(false);
    expect(result.current.context).toBe(held);
  });

  it('never reads without a way to read', () => {
    const { result } = renderHook(() => useRefreshedContext(context(), undefined));
    expect(result.current.refreshIfRefused(() => true)).toBeNull();
  });
});
