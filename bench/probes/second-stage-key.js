// Session probe (issue 29, branch large82k): turns a copy of bench:throughput's 82k key into one whose model has the
// second stage, as the thirteenth session's kept key had (a model fitted before issue 32 carries no shape and gets
// `shapeBySize`: LSA 64 with the second stage from 2,000 documents). Today's fit chooses the shape by the key's own
// documents, and the bench:scale corpus (Debian descriptions, then 20NG posts; median 39 terms) is dense-only.
// The model is fitted here on every text with dim 64 (`shapeBySize`, as the old models); the snapshot written holds it
// and no vectors, dated long ago, so the server re-embeds every stored document with it at start (its own catch-up,
// terms included), builds the approximate index and tunes its probes with the second stage, as for any key.
//   node bench/probes/second-stage-key.js <data dir copy of the 82k key>
const fs = require('fs');
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { fitModelSync, serializeModel, modelInfo, usesSecondStage } = require(path.join(ROOT, 'dist/src/embedding'));
const { VectorIndex } = require(path.join(ROOT, 'dist/src/vector'));
const { saveContentSnapshot } = require(path.join(ROOT, 'dist/src/index/content-snapshot'));
const { realTexts } = require(path.join(ROOT, 'dist/bench/support'));

(async () => {
  const dataDir = process.argv[2];
  const [tenant] = fs.readdirSync(path.join(dataDir, 'index')).filter((f) => fs.statSync(path.join(dataDir, 'index', f)).isDirectory());
  const dir = path.join(dataDir, 'index', tenant);
  const texts = realTexts();
  const started = Date.now();
  const model = serializeModel(fitModelSync(texts, { dim: 64 }));
  const info = modelInfo(model);
  console.log(`fitted on ${texts.length} texts in ${((Date.now() - started) / 1000).toFixed(0)} s: ${info.id}, dim ${info.dim}, second stage ${usesSecondStage(model)}`);
  const index = new VectorIndex(info.dim, { approximate: false, terms: true });
  fs.rmSync(dir, { recursive: true, force: true });
  await saveContentSnapshot(dir, { model, index, meta: { modelId: info.id, fittedDocs: texts.length, savedAt: '2000-01-01T00:00:00.000Z' } });
  index.close();
  console.log(`written ${dir}: ${fs.readdirSync(dir).join(', ')}`);
  process.exit(0);
})();
