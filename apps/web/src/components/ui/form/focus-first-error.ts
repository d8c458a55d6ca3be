const CONTROLS = 'input, select, textarea, button';

/**
 * Where a refused save leaves the operator: on the first field marked in error, in page order,
 * scrolled into view; without one, on the first error message. Only when the focus is where the
 * save left it (`atSubmit`: the field Enter was pressed in, the button, or nowhere): whoever moved
 * on to type elsewhere meanwhile keeps typing where they are.
 */
export function focusFirstError(form: HTMLFormElement, atSubmit: Element | null) {
  const doc = form.ownerDocument;
  const active = doc.activeElement;
  const idle =
    !active ||
    active === doc.body ||
    active === atSubmit ||
    (form.contains(active) && active.matches('button'));
  if (!idle) return;
  const marked = [...form.querySelectorAll<HTMLElement>('[aria-invalid="true"]')];
  const control = marked
    .map((el) =>
      el.matches(CONTROLS)
        ? el
        : (el.querySelector<HTMLElement>('input:checked:enabled') ??
          el.querySelector<HTMLElement>('input:enabled, select:enabled')),
    )
    .find((el): el is HTMLElement => Boolean(el) && !(el as HTMLInputElement).disabled);
  const target =
    control ??
    form.querySelector<HTMLElement>('[role="alert"]') ??
    form.ownerDocument.querySelector<HTMLElement>('[role="alert"]');
  if (!target) return;
  if (!target.matches(CONTROLS)) target.tabIndex = -1;
  target.focus({ preventScroll: true });
  // Centred, so that the field's label and its message show with it (jsdom has no scrolling).
  target.scrollIntoView?.({ block: 'center' });
}
