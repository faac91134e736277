/**
 * A mark shape per series, beside its colour: a reader who cannot tell Tableau's orange from its
 * red (or who prints in grey) still tells a square from a triangle. Eight shapes for the eight
 * series a chart may hold. Each is drawn by Plot as a custom symbol (an object with `draw`, as
 * d3-shape's are), and the same drawing, as an SVG path, is the legend's swatch, so the two
 * cannot differ.
 */

/** The part of CanvasPath a symbol draws with: what Plot hands `draw`, and what pathOf collects. */
interface Pen {
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  arc(x: number, y: number, r: number, a0: number, a1: number): void;
  closePath(): void;
}

export interface Symbol {
  name: string;
  /** `size` is the area d3 gives a symbol (π r² for Plot's `r`). */
  draw(pen: Pen, size: number): void;
}

/** A closed polygon through points on a unit radius, scaled so its area reads like a circle's of that size. */
function polygon(name: string, points: readonly (readonly [number, number])[], k: number): Symbol {
  return {
    name,
    draw(pen, size) {
      const r = Math.sqrt(size / Math.PI) * k;
      points.forEach(([x, y], i) => {
        if (i === 0) pen.moveTo(x * r, y * r);
        else pen.lineTo(x * r, y * r);
      });
      pen.closePath();
    },
  };
}

const star = Array.from({ length: 10 }, (_, i) => {
  const a = (i * Math.PI) / 5 - Math.PI / 2;
  const r = i % 2 === 0 ? 1 : 0.45;
  return [r * Math.cos(a), r * Math.sin(a)] as const;
});
const t = 0.35;
const plus = [
  [-t, -1],
  [t, -1],
  [t, -t],
  [1, -t],
  [1, t],
  [t, t],
  [t, 1],
  [-t, 1],
  [-t, t],
  [-1, t],
  [-1, -t],
  [-t, -t],
] as const;
const times = plus.map(([x, y]) => [(x - y) * Math.SQRT1_2, (x + y) * Math.SQRT1_2] as const);

export const SYMBOLS: readonly Symbol[] = [
  {
    name: 'circle',
    draw(pen, size) {
      const r = Math.sqrt(size / Math.PI);
      pen.moveTo(r, 0);
      pen.arc(0, 0, r, 0, 2 * Math.PI);
      pen.closePath();
    },
  },
  polygon(
    'square',
    [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ],
    0.9,
  ),
  polygon(
    'triangle',
    [
      [0, -1.15],
      [1, 0.6],
      [-1, 0.6],
    ],
    1.35,
  ),
  polygon(
    'diamond',
    [
      [0, -1.3],
      [1, 0],
      [0, 1.3],
      [-1, 0],
    ],
    1.1,
  ),
  polygon(
    'triangle-down',
    [
      [0, 1.15],
      [1, -0.6],
      [-1, -0.6],
    ],
    1.35,
  ),
  polygon('plus', plus, 1.25),
  polygon('star', star, 1.6),
  polygon('times', times, 1.3),
];

/** A symbol as SVG path data at radius-equivalent `r` (the legend's swatch). */
export function pathOf(symbol: Symbol, r: number): string {
  const parts: string[] = [];
  const n = (v: number) => String(Math.round(v * 100) / 100);
  symbol.draw(
    {
      moveTo: (x, y) => parts.push(`M${n(x)},${n(y)}`),
      lineTo: (x, y) => parts.push(`L${n(x)},${n(y)}`),
      // A whole circle as two half arcs: SVG cannot draw one arc from a point back to itself.
      arc: (x, y, rr) =>
        parts.push(
          `M${n(x + rr)},${n(y)}A${n(rr)},${n(rr)},0,1,1,${n(x - rr)},${n(y)}A${n(rr)},${n(rr)},0,1,1,${n(x + rr)},${n(y)}`,
        ),
      closePath: () => parts.push('Z'),
    },
    Math.PI * r * r,
  );
  return parts.join('');
}
