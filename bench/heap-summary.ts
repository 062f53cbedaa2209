/**
 * Aggregates a V8 heap snapshot (node:v8 writeHeapSnapshot) by node type and
 * constructor name: count and self size, largest first; with a second
 * snapshot, the difference (after - before). A probe of where memory
 * goes (docs/benchmarks.md "Memory"), not part of `npm run bench`.
 *
 *   npx tsx bench/heap-summary.ts after.heapsnapshot [before.heapsnapshot] [--top 40]
 */
import { readFileSync } from 'node:fs';

interface Totals {
  count: number;
  bytes: number;
}

export function summarise(path: string): Map<string, Totals> {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out = new Map<string, Totals>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]!]!;
    let name = type;
    if (type === 'object' || type === 'native' || type === 'hidden' || type === 'code') name = `${type}:${strings[nodes[i + nameAt]!]!.slice(0, 60)}`;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = `${type}`;
    const totals = out.get(name) ?? { count: 0, bytes: 0 };
    totals.count++;
    totals.bytes += nodes[i + sizeAt]!;
    out.set(name, totals);
  }
  return out;
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 40;
const [afterPath, beforePath] = args;
if (!afterPath) throw new Error('usage: heap-summary.ts after.heapsnapshot [before.heapsnapshot]');
const after = summarise(afterPath);
const before = beforePath ? summarise(beforePath) : new Map<string, Totals>();
const rows = [...new Set([...after.keys(), ...before.keys()])].map((name) => {
  const a = after.get(name) ?? { count: 0, bytes: 0 };
  const b = before.get(name) ?? { count: 0, bytes: 0 };
  return { name, count: a.count - b.count, bytes: a.bytes - b.bytes };
});
rows.sort((x, y) => y.bytes - x.bytes);
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
console.log(`total ${(total / 1048576).toFixed(1)} MiB`);
for (const r of rows.slice(0, top)) console.log(`${(r.bytes / 1048576).toFixed(2).padStart(8)} MiB ${String(r.count).padStart(9)}  ${r.name}`);
