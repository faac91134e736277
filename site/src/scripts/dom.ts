import type { TreeNode } from '../lib/text/tree';
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

/**
 * A submitter's string as the server-rendered pages show it (Submitted.astro): isolated in <bdi>,
 * wrapping anywhere, cut at 120 characters with the whole in `title`; '—' when there is none.
 */
export function submitted(text: string | null | undefined): Node | string {
  if (!text) return '—';
  const chars = Array.from(text);
  const e = el('bdi', { class: 'submitted' }, chars.length > 120 ? `${chars.slice(0, 119).join('')}…` : text);
  if (chars.length > 120) e.setAttribute('title', text);
  return e;
}

/** A view built as a tree (lib/tree.ts) as DOM nodes: every text a text node, never markup. */
export function toDom(node: TreeNode): Node {
  if (typeof node === 'string') return document.createTextNode(node);
  return el(node.tag, node.attrs, ...node.children.map(toDom));
}
