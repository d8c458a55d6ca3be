import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useAfterPaint } from './after-paint';

const render = (value: string, layout: number) =>
  renderHook(
    (props: { value: string; layout: number }) => useAfterPaint(props.value, props.layout),
    {
      initialProps: { value, layout },
    },
  );

/** Resolves after the next animation frame and the task after it. */
const frame = () =>
  new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve)));

describe('useAfterPaint', () => {
  it('gives the first value at once', () => {
    expect(render('100', 1).result.current).toBe('100');
  });

  it('gives a changed value in the frame after, not in the render that changed it', async () => {
    const hook = render('100 100', 2);
    hook.rerender({ value: '10 100', layout: 2 });
    expect(hook.result.current).toBe('100 100');
    await waitFor(() => expect(hook.result.current).toBe('10 100'));
  });

  it('gives only the last of the values changed within one frame', async () => {
    const seen: string[] = [];
    const hook = renderHook(
      (props: { value: string }) => {
        const shown = useAfterPaint(props.value, 1);
        seen.push(shown);
        return shown;
      },
      { initialProps: { value: '1' } },
    );
    hook.rerender({ value: '10' });
    hook.rerender({ value: '100' });
    await waitFor(() => expect(hook.result.current).toBe('100'));
    await frame();
    expect(new Set(seen)).toEqual(new Set(['1', '100']));
  });

  it('gives the value at once when the layout changes (a row added or removed)', () => {
    const hook = render('100 100', 2);
    hook.rerender({ value: '100', layout: 1 });
    expect(hook.result.current).toBe('100');
  });

  it('keeps a value taken with a layout change when only the value changes after', async () => {
    const hook = render('100 100', 2);
    hook.rerender({ value: '100', layout: 1 });
    hook.rerender({ value: '5', layout: 1 });
    expect(hook.result.current).toBe('100');
    await waitFor(() => expect(hook.result.current).toBe('5'));
  });
});
