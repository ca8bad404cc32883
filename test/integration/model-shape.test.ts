import assert from 'node:assert/strict';
import { contentModelOf, describeContentModel } from '../../src/cli/eval';
import { ENTROPY_TERMS_FROM } from '../../src/embedding/fit';
import { KindredClient } from '../../src/cli/http-client';
import { Client, createInBatches } from '../helpers/client';
import { newsgroupTexts, tenantOf } from '../helpers/invariants';
import { startServer, type RunningServer } from '../helpers/server';

interface Shape {
  chosenBy: string;
  dim: number;
  weighting: string;
  singularValueExponent?: number;
  powerIterations?: number;
  sparseWeighting?: string;
  secondStage: boolean;
  candidates: number;
  weights?: { feedbackDocs: number; feedbackWeight: number; denseWeight: number; denseFeedbackWeight: number };
  check?: { method: string; documents: number; medianTerms: number; longTextTerms: number; checkMs: number; fitMs: number };
}
interface Entry { tenant: string; indexed: number; refitting: boolean; model?: { kind: string; dim: number; fittedDocs: number; shape: Shape } }

const DOCUMENTS = 2100;
/** One-liners: from 4,000 documents (`DENSE_ONLY_WIDE_BELOW`) a dense-only key takes 96 dimensions. */
const SHORT_DOCUMENTS = 4200;

/**
 * Issue 32: each key's content model is shaped at refit by a label-free check on the key's own documents, and
 * GET /healthz shows the choice and the check's figures. Long posts get the TF-IDF second stage; the same
 * number of one-line texts rank by the dense score alone.
 */
describe('model shape chosen per key (issue 32)', function () {
  this.timeout(300_000);
  let server: RunningServer;

  // A scheduled refit every few seconds fits the model on every document (growth refits land where they may).
  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['long-key', 'short-key'], env: { KINDRED_REFIT_CRON: '*/4 * * * * *' } });
  });
  after(() => server?.stop());

  async function entry(key: string): Promise<Entry | undefined> {
    const body = (await (await fetch(`${server.url}/healthz?tenant=${tenantOf(key)}`)).json()) as { indexing: Entry[] };
    assert.ok(body.indexing.every((e) => e.tenant === tenantOf(key)), '?tenant= lists that key only');
    return body.indexing[0];
  }

  async function load(key: string, docs: Array<{ id: string; text: string }>): Promise<Entry> {
    await createInBatches(new Client(server.url, key), docs);
    const until = Date.now() + 240_000;
    let last: Entry | undefined;
    while (Date.now() < until) {
      last = await entry(key);
      if (last?.model && last.model.fittedDocs === docs.length && !last.refitting) return last;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.fail(`no model fitted on every document: ${JSON.stringify(last)}`);
  }

  it('shows each key\'s shape and its check in /healthz: the second stage for long posts, dense only for one-liners', async () => {
    const posts = newsgroupTexts(SHORT_DOCUMENTS);
    const long = await load('long-key', posts.slice(0, DOCUMENTS));
    const short = await load('short-key', posts.map((p) => ({ id: p.id, text: p.text.split(/\s+/).slice(0, 12).join(' ') })));
    for (const e of [long, short]) {
      const shape = e.model!.shape;
      assert.equal(e.model!.kind, 'lsa');
      assert.equal(shape.chosenBy, 'check');
      assert.equal(shape.dim, e.model!.dim);
      assert.equal(shape.check?.method, 'document-length');
      assert.ok(shape.check.documents >= 2000, JSON.stringify(shape.check));
      assert.ok(shape.check.checkMs <= 0.2 * shape.check.fitMs, `the check is a small share of the fit: ${JSON.stringify(shape.check)}`);
    }
    assert.ok(long.model!.shape.check!.medianTerms >= long.model!.shape.check!.longTextTerms, JSON.stringify(long.model));
    assert.equal(long.model!.shape.secondStage, true);
    assert.deepEqual(long.model!.shape.weights,
      { feedbackDocs: 3, feedbackWeight: 2, denseWeight: 1.5, denseFeedbackWeight: 3 }, 'the second stage weighs the dense evidence at λ 1.5, μ 3');
    assert.equal(long.model!.shape.weighting, 'log-entropy', 'long texts: the projection fitted on log-entropy weights');
    assert.equal(short.model!.shape.weighting, 'sublinear-tfidf');
    assert.equal(long.model!.shape.singularValueExponent, 0.5, 'long texts: σ^-0.5, as the second stage was tuned');
    assert.equal(short.model!.shape.singularValueExponent, 1, 'short texts: textbook LSA, σ unscaled');
    assert.equal(long.model!.shape.powerIterations, 4, 'long texts: the SVD settled by 4 power iterations');
    assert.equal(short.model!.shape.powerIterations, 1);
    const longTerms = long.model!.shape.sparseWeighting;
    assert.equal(longTerms, long.model!.shape.check!.medianTerms >= ENTROPY_TERMS_FROM ? 'log-entropy' : 'sublinear-tfidf', 'the second stage\'s terms by length');
    assert.equal(short.model!.shape.sparseWeighting, 'sublinear-tfidf');
    assert.ok(short.model!.shape.check!.medianTerms < short.model!.shape.check!.longTextTerms, JSON.stringify(short.model));
    assert.equal(short.model!.shape.secondStage, false);
    assert.equal(short.model!.shape.dim, 96, 'dense only from 4,000 documents: 96 dimensions');
    assert.equal(long.model!.shape.dim, 64);

    // `kindred eval` reads the same figures from /healthz and prints the choice.
    const evalLines = await Promise.all(['long-key', 'short-key'].map(async (key) => describeContentModel(await contentModelOf(new KindredClient(server.url, key), key))));
    assert.match(evalLines[0]!, new RegExp(String.raw`^content model: lsa, \d+ dimensions, fitted on 2100 documents, second stage on \(\d+ candidates, terms ${longTerms}, dense λ 1\.5 μ 3\), projection log-entropy σ\^-0\.5, SVD 4 power iterations; chosen by the key's documents: median \d+ terms`));
    assert.match(evalLines[1]!, /^content model: lsa, 96 dimensions, fitted on 4200 documents, dense only \(no second stage\), projection sublinear-tfidf σ\^0, SVD 1 power iterations; chosen by the key's documents: median \d+ terms/);

    // Both find the document itself among the first three, whichever shape they run.
    for (const [key, text, id] of [['long-key', posts[7]!.text, posts[7]!.id], ['short-key', posts[7]!.text.split(/\s+/).slice(0, 12).join(' '), posts[7]!.id]] as const) {
      const res = await new Client(server.url, key).post('/documents/similar-to-text', { text, number: 3 });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.some((r: { id: string }) => r.id === id), `${key}: ${res.text}`);
    }
  });
});
