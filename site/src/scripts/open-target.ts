/**
 * A link to a folded part of a page (`/methodology/#admission`, `#warning-DRIFT`) opens every
 * <details> that holds its target, then shows the target. Chromium opens a closed <details> for a
 * target inside its folded content by itself, but not for a target in its summary (a folded section's
 * heading), and other browsers do neither. Without JavaScript the heading still shows, with the line
 * saying what is inside, one click from it.
 */
export function openTarget(): void {
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id ? document.getElementById(id) : null;
  if (!target) return;
  let opened = false;
  for (let e = target.parentElement; e; e = e.parentElement)
    if (e instanceof HTMLDetailsElement && !e.open) {
      e.open = true;
      opened = true;
    }
  if (opened) target.scrollIntoView();
}

export function initOpenTarget(): void {
  openTarget();
  addEventListener('hashchange', openTarget);
}
