// Session probe (issue 29, eleventh session): bench:scale's recall@10 between two running servers of the same key
// (one approximate, one on KINDRED_EXACT_SEARCH=1), with the answers that differ and their similarities.
//   node bench/probes/http-recall.js <approximate base> <exact base> <key> <documents> [queries] [--show]
const [approxBase, exactBase, key, docs, queriesArg = '200', show] = process.argv.slice(2);
const ids = Array.from({ length: Number(queriesArg) }, (_, i) => `d${(i * 7919) % Number(docs)}`);
const similar = async (base, id) => {
  const res = await fetch(`${base}/documents/${id}/similar?number=10`, { headers: { 'Subscription-Key': key } });
  if (!res.ok) throw new Error(`${base}: ${res.status} ${await res.text()}`);
  const body = await res.json();
  return (Array.isArray(body) ? body : body.results ?? body.documents).map((h) => ({ id: h.id, s: h.similarity ?? h.score }));
};
(async () => {
  let sum = 0;
  for (const id of ids) {
    const [a, e] = [await similar(approxBase, id), await similar(exactBase, id)];
    const got = new Set(a.map((h) => h.id));
    const kept = e.filter((h) => got.has(h.id)).length;
    sum += e.length === 0 ? 1 : kept / e.length;
    if (show && kept < e.length) {
      const want = new Set(e.map((h) => h.id));
      console.log(id, 'missing', e.filter((h) => !got.has(h.id)).map((h) => `${h.id}:${h.s}`).join(' '), '| instead', a.filter((h) => !want.has(h.id)).map((h) => `${h.id}:${h.s}`).join(' '), '| 10th exact', e[e.length - 1]?.s);
    }
  }
  console.log(`recall@10 over ${ids.length} queries: ${(sum / ids.length).toFixed(3)}`);
})();
