import fs from 'node:fs';
import express from 'express';

/**
 * The baseline for bench:api and bench:throughput: a bare Express handler answering JSON from memory, with no
 * authentication, validation, storage or logging. With BARE_DOCUMENTS (a JSON file of [id, answer] pairs, the
 * answers Kindred gave for those ids) it answers GET /documents/:id with exactly those bodies, so both servers
 * write the same bytes; without it, a 400-character document (bench:api's documents are that size).
 */
const doc = {
  id: 'bench-0', text: 'x'.repeat(400), meta: { title: 'bench' },
  created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', published_at: null,
};
const file = process.env.BARE_DOCUMENTS;
const documents = new Map<string, unknown>(file ? JSON.parse(fs.readFileSync(file, 'utf8')) as Array<[string, unknown]> : []);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
app.get('/documents/:id', (req, res) => {
  if (!file) res.json({ ...doc, id: req.params.id });
  else if (documents.has(req.params.id)) res.json(documents.get(req.params.id));
  else res.status(404).json({ message: 'Document not found' });
});
app.post('/documents', express.json(), (req, res) => { res.status(201).json({ ...doc, ...req.body }); });
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
