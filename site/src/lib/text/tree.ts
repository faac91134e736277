import { escapeHtml } from './html.js';

/**
 * A small element tree: what a view is, built once by a pure function, then written either as HTML
 * at build time (toHtml, escaping every text and attribute) or as DOM nodes in the browser
 * (scripts/dom.ts toDom, text nodes only, never innerHTML). Both renderers are generic, so the two
 * places a view appears cannot drift apart. Browser-safe: no Node import here.
 */
export type TreeNode = string | TreeElement;

export interface TreeElement {
  tag: string;
  attrs: Record<string, string>;
  children: TreeNode[];
}

/** An element; attributes whose value is undefined are left out. */
export function h(
  tag: string,
  attrs: Record<string, string | undefined> = {},
  ...children: TreeNode[]
): TreeElement {
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) set[k] = v;
  return { tag, attrs: set, children };
}

/**
 * Text a submitter wrote, as Submitted.astro shows it: isolated in <bdi>, wrapping anywhere, cut at
 * 120 characters (text.ts SHORT_TEXT, which this file cannot import: text.ts reads packages/result's
 * main entry, too heavy for the browser) with the whole in its title; '—' when there is none.
 */
export function submittedText(text: string | null | undefined): TreeNode {
  if (!text) return '—';
  const chars = Array.from(text);
  if (chars.length <= 120) return h('bdi', { class: 'submitted' }, text);
  return h('bdi', { class: 'submitted', title: text }, `${chars.slice(0, 119).join('')}…`);
}

const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link']);

export function toHtml(node: TreeNode): string {
  if (typeof node === 'string') return escapeHtml(node);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join('');
  if (VOID.has(node.tag)) return `<${node.tag}${attrs}>`;
  return `<${node.tag}${attrs}>${node.children.map(toHtml).join('')}</${node.tag}>`;
}
