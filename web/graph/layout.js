// @ts-check
// Where the queue graph draws each part of a picture (picture.js), in SVG user units: the target's tip
// on the left, each lane a row of boxes in merge order with the arrows between them and the PRs waiting
// at its back in a block of small chips, the PRs not ready underneath, the PRs leaving under them (so
// that the tip and the first run come first on a narrow screen, and four runs fit a desktop's width).
// Pure geometry: ../graph.js draws what this places.

/** @typedef {import('./picture.js').DrawnPr} DrawnPr */
/** @typedef {import('./picture.js').Item} Item */
/** @typedef {import('./picture.js').Lane} Lane */
/** @typedef {import('./picture.js').Picture} Picture */
/** @typedef {{ x: number, y: number }} Point */
/**
 * A PR placed: its rectangle and its size, `node` (a lane's or a PR not ready: number, word and title),
 * `leaving` (number and word) or `chip` (waiting at the back of a lane: its number only).
 * @typedef {{ node: DrawnPr, x: number, y: number, w: number, h: number, size: 'node' | 'leaving' | 'chip' }} PlacedPr
 */
/** An arrow from what an item is built on to the item: its SVG path. @typedef {{ key: string, d: string, dashed: boolean }} Arrow */
/**
 * An item placed: its box (drawn around a run's or passed PRs, not around a PR waiting alone), where its
 * label starts, its PRs.
 * @typedef {{ item: Item, x: number, y: number, w: number, h: number, label: Point, prs: PlacedPr[] }} PlacedItem
 */
/** @typedef {{ label: Point, prs: PlacedPr[] }} Block PRs drawn together under a label */
/** @typedef {{ lane: Lane, label: Point, arrows: Arrow[], items: PlacedItem[], waiting: Block | null }} PlacedLane */
/**
 * The whole picture placed. `leaving` PRs that merged have a `line` into the trunk.
 * @typedef {{
 *   width: number,
 *   height: number,
 *   trunk: { x: number, y: number, w: number, h: number },
 *   lanes: PlacedLane[],
 *   empty: Point | null,
 *   notReady: Block | null,
 *   leaving: { label: Point, prs: (PlacedPr & { line: string | null })[] } | null,
 * }} Layout
 */

const NODE_W = 156;
const NODE_H = 46;
const GAP = 8; // between the PRs of one box
const PAD = 8; // inside a box
const HEAD = 34; // a run's label, above its PRs inside its box
const STEP = 44; // between items of a lane: room for the arrow
const LANE_LABEL = 22;
const ROW_H = LANE_LABEL + HEAD + NODE_H + 2 * PAD + 18;
const MARGIN = 12;
const TRUNK_W = 104;
const LEAVE_W = 150;
const LEAVE_H = 30;
/** A PR waiting at the back of its lane: its number only. */
const CHIP_W = 58;
const CHIP_H = 30;
/** How far below the row an arrow that skips items dips (its control points). */
const ARC = 60;

/**
 * The path of an arrow from `a` to `b`: a gentle S between neighbours, an arc dipping under the row
 * when it skips items between.
 * @param {Point} a @param {Point} b
 */
export function arrowPath(a, b) {
  return b.x - a.x > STEP + 2
    ? `M${a.x},${a.y} C${a.x + 40},${a.y + ARC} ${b.x - 40},${b.y + ARC} ${b.x},${b.y}`
    : `M${a.x},${a.y} C${(a.x + b.x) / 2},${a.y} ${(a.x + b.x) / 2},${b.y} ${b.x},${b.y}`;
}

/**
 * Where each part of `pic` is drawn.
 * @param {Picture} pic
 * @returns {Layout}
 */
export function layout(pic) {
  const trunkX = MARGIN;
  const lanesX = trunkX + TRUNK_W + 40;
  const lanesH = Math.max(1, pic.lanes.length) * ROW_H;
  const notReadyY = MARGIN + lanesH;
  const leavingY = notReadyY + (pic.notReady.length ? LANE_LABEL + NODE_H + 20 : 0);
  const leavingH = pic.leaving.length ? LANE_LABEL + pic.leaving.length * (LEAVE_H + 10) : 0;
  /** @type {Map<number, Point>} where each PR's node ends: its arrows start there */
  const ends = new Map();
  let width = lanesX;
  const lanes = pic.lanes.map((lane, row) => {
    const top = MARGIN + row * ROW_H;
    const nodeY = top + LANE_LABEL + HEAD + PAD;
    const mid = nodeY + NODE_H / 2;
    const trunk = { x: trunkX + TRUNK_W, y: mid };
    let x = lanesX;
    /** @type {Arrow[]} */
    const arrows = [];
    /** @type {PlacedItem[]} */
    const items = [];
    // The PRs waiting at the back of the lane are drawn small, in a block of two rows.
    let back = lane.items.length;
    while (back > 0 && lane.items[back - 1]?.kind === 'waiting') back--;
    for (const item of lane.items.slice(0, back)) {
      const boxed = item.kind !== 'waiting';
      const w = item.nodes.length * NODE_W + (item.nodes.length - 1) * GAP + (boxed ? 2 * PAD : 0);
      const from = item.after === null ? trunk : ends.get(item.after);
      if (from)
        arrows.push({ key: `e-${item.key}`, d: arrowPath(from, { x, y: mid }), dashed: item.kind === 'waiting' });
      const prs = item.nodes.map((node, i) => {
        const nx = x + (boxed ? PAD : 0) + i * (NODE_W + GAP);
        ends.set(node.number, { x: boxed ? x + w : nx + NODE_W, y: mid });
        return /** @type {PlacedPr} */ ({ node, x: nx, y: nodeY, w: NODE_W, h: NODE_H, size: 'node' });
      });
      const y = top + LANE_LABEL;
      items.push({ item, x, y, w, h: HEAD + NODE_H + 2 * PAD, label: { x: x + PAD + 2, y: y + 16 }, prs });
      x += w + STEP;
    }
    const waitingPrs = lane.items.slice(back).flatMap((i) => i.nodes);
    /** @type {Block | null} */
    let waiting = null;
    if (waitingPrs.length) {
      const rows = waitingPrs.length > 2 ? 2 : 1;
      const chipsTop = rows === 2 ? mid - CHIP_H - 4 : mid - CHIP_H / 2;
      const previous = lane.items[back - 1]?.nodes.at(-1)?.number;
      const from = previous === undefined ? trunk : ends.get(previous);
      if (from) arrows.push({ key: 'e-waiting', d: arrowPath(from, { x, y: mid }), dashed: true });
      const left = x;
      waiting = {
        label: { x, y: chipsTop - 8 },
        prs: waitingPrs.map((node, i) => ({
          node,
          x: left + Math.floor(i / rows) * (CHIP_W + GAP),
          y: chipsTop + (i % rows) * (CHIP_H + 8),
          w: CHIP_W,
          h: CHIP_H,
          size: 'chip',
        })),
      };
      x += Math.ceil(waitingPrs.length / rows) * (CHIP_W + GAP) - GAP + STEP;
    }
    width = Math.max(width, x - STEP);
    return { lane, label: { x: lanesX, y: top + 14 }, arrows, items, waiting };
  });
  if (pic.lanes.length === 0) width = lanesX + 260;
  if (pic.notReady.length) width = Math.max(width, lanesX + pic.notReady.length * (NODE_W + GAP));
  if (pic.leaving.length) width = Math.max(width, lanesX + LEAVE_W);
  width += MARGIN;

  return {
    width,
    height: leavingY + (leavingH ? leavingH + 10 : 0),
    // The trunk reaches every lane and every leaving PR that merged into it.
    trunk: { x: trunkX, y: MARGIN, w: TRUNK_W, h: leavingH ? leavingY + leavingH - 10 - MARGIN : lanesH - 18 },
    lanes,
    empty: pic.lanes.length === 0 ? { x: lanesX, y: MARGIN + ROW_H / 2 } : null,
    notReady: pic.notReady.length
      ? {
          label: { x: lanesX, y: notReadyY + 14 },
          prs: pic.notReady.map((node, i) => ({
            node,
            x: lanesX + i * (NODE_W + GAP),
            y: notReadyY + LANE_LABEL,
            w: NODE_W,
            h: NODE_H,
            size: 'node',
          })),
        }
      : null,
    leaving: pic.leaving.length
      ? {
          label: { x: lanesX, y: leavingY + 14 },
          prs: pic.leaving.map((node, i) => {
            const y = leavingY + LANE_LABEL + i * (LEAVE_H + 10);
            const line = node.state === 'MERGED' ? `M${lanesX},${y + LEAVE_H / 2} H${trunkX + TRUNK_W}` : null;
            return { node, x: lanesX, y, w: LEAVE_W, h: LEAVE_H, size: 'leaving', line };
          }),
        }
      : null,
  };
}
