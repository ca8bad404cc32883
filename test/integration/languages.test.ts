import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { LANGUAGE_CORPORA, TOPICS, type LanguageCorpus, type Topic } from '../fixtures/languages';

const topicOf = (id: string) => id.split('-')[0];
const idsOf = (body: Array<{ id: string }>) => body.map((r) => r.id);

/** Russian, Chinese, Japanese, Arabic and German keys of three topics each, through HTTP (issue 14). */
describe('recommendations in every script', function () {
  this.timeout(180_000);
  const languages = Object.keys(LANGUAGE_CORPORA) as Array<keyof typeof LANGUAGE_CORPORA>;
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: languages.map((l) => `key-${l}`) });
  });
  after(() => server?.stop());

  for (const language of languages) {
    describe(language, () => {
      const corpus: LanguageCorpus = LANGUAGE_CORPORA[language];
      const ids = TOPICS.flatMap((topic) => corpus.documents[topic].map((_, i) => `${topic}-${i}`));
      const textOf = (id: string) => corpus.documents[topicOf(id) as Topic][Number(id.split('-')[1])]!;
      let api: Client;

      before(async () => {
        api = new Client(server.url, `key-${language}`);
        for (const id of ids) {
          assert.equal((await api.post(`/documents/${id}`, { text: textOf(id) })).status, 201);
          assert.ok((await api.post(`/documents/${id}/tags/${topicOf(id)}`)).status < 300);
        }
      });

      it('finds documents of the same topic as similar', async () => {
        let sameFirst = 0;
        let sameInTop3 = 0;
        for (const id of ids) {
          const res = await api.get(`/documents/${id}/similar?number=3`);
          assert.equal(res.status, 200, res.text);
          const found = idsOf(res.body);
          assert.equal(found.length, 3, `${id}: ${found.join(', ')}`);
          if (topicOf(found[0]!) === topicOf(id)) sameFirst++;
          sameInTop3 += found.filter((f) => topicOf(f) === topicOf(id)).length;
        }
        assert.ok(sameFirst >= ids.length - 2, `first of the same topic for ${sameFirst} of ${ids.length}`);
        assert.ok(sameInTop3 >= 0.75 * 3 * ids.length, `${sameInTop3} of ${3 * ids.length} in the same topic`);
      });

      it('recommends from a text of the topic, and from several documents of it', async () => {
        for (const topic of TOPICS) {
          const byText = await api.post('/documents/similar-to-text', { text: corpus.queries[topic], number: 3 });
          assert.equal(byText.status, 200, byText.text);
          const found = idsOf(byText.body);
          assert.equal(topicOf(found[0]!), topic, `${topic}: ${found.join(', ')}`);
          assert.ok(found.filter((f) => topicOf(f) === topic).length >= 2, `${topic}: ${found.join(', ')}`);

          const byIds = await api.post('/documents/similar-to-ids', { ids: [`${topic}-0`, `${topic}-1`], number: 2 });
          assert.equal(byIds.status, 200, byIds.text);
          assert.deepEqual(idsOf(byIds.body).map(topicOf), [topic, topic], idsOf(byIds.body).join(', '));
        }
      });

      it('recommends to a user from their preferences, and suggests the topic\'s tag', async () => {
        for (const topic of TOPICS) {
          const user = `reader-${topic}`;
          assert.ok((await api.post(`/users/${user}`)).status < 300);
          await api.post(`/users/${user}/preferences/${topic}-0`);
          await api.post(`/users/${user}/preferences/${topic}-1`);
          const recs = await api.get(`/users/${user}/recommendations?number=2`);
          assert.equal(recs.status, 200, recs.text);
          assert.deepEqual(idsOf(recs.body).map(topicOf), [topic, topic], idsOf(recs.body).join(', '));

          const tags = await api.post('/tags/recommend-by-text', { text: corpus.queries[topic] });
          assert.equal(tags.status, 200, tags.text);
          assert.equal(tags.body.results[0]?.id, topic, JSON.stringify(tags.body.results));
        }
      });

      it('v1 accepts a text of 25 words or more, refuses a shorter one, and recommends by it', async () => {
        const v1 = async (path: string, form: Record<string, string>) => {
          const res = await fetch(`${server.url}/v1${path}?subscription-key=key-${language}`, {
            method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
          });
          const text = await res.text();
          return { status: res.status, text };
        };
        const long = corpus.documents.football.slice(0, 3).join(' ');
        const added = await v1('/add/', { document_id: `v1-${language}`, text: long });
        assert.equal(added.status, 200, added.text);
        const short = await v1('/add/', { document_id: `v1-short-${language}`, text: corpus.queries.space.slice(0, 12) });
        assert.equal(short.status, 406, short.text);
        const recommended = await v1('/recommend-by-text/', { text: long, results: '3' });
        assert.equal(recommended.status, 200, recommended.text);
        const found = (JSON.parse(recommended.text) as Array<{ document_id: string }>).map((r) => r.document_id);
        assert.ok(found.every((id) => id === `v1-${language}` || topicOf(id) === 'football'), found.join(', '));
      });
    });
  }
});
