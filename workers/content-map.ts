import { fitContentMap, type ContentMap } from '../src/models/hybrid/content-map';
import type { ContentMapTask } from '../src/models/hybrid/protocol';

/** Fits the cold-start map (content → item factors) on the documents the model was trained on. */
export default function contentMap(task: ContentMapTask): ContentMap | null {
  const row = new Map(task.ids.map((id, r) => [id, r]));
  const rows: number[] = [];
  const items: number[] = [];
  task.itemIds.forEach((id, i) => {
    const r = row.get(id);
    if (r === undefined) return;
    rows.push(r);
    items.push(i);
  });
  if (rows.length === 0) return null;
  const content = new Float32Array(rows.length * task.dim);
  rows.forEach((r, j) => content.set(task.vectors.subarray(r * task.dim, (r + 1) * task.dim), j * task.dim));
  return fitContentMap(content, task.dim, Int32Array.from(items), task.itemFactors, task.k, task.ridge);
}
