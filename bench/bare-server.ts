import express from 'express';

/**
 * The baseline for bench:api: a bare Express handler answering the same JSON from memory,
 * with no authentication, validation, storage or logging.
 */
const doc = {
  id: 'bench-0', text: 'x'.repeat(400), meta: { title: 'bench' },
  created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', published_at: null,
};
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
app.get('/documents/:id', (req, res) => { res.json({ ...doc, id: req.params.id }); });
app.post('/documents', express.json(), (req, res) => { res.status(201).json({ ...doc, ...req.body }); });
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
