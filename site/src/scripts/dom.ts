/**
 * Elements from text, never from markup: the client scripts show submitters' strings (CPU models,
 * versions), and append() of a string makes a text node, so none of it can become HTML.
 */
export function el(
  tag: string,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

export function link(href: string, ...children: (Node | string)[]): HTMLAnchorElement {
  return el('a', { href }, ...children) as HTMLAnchorElement;
}
