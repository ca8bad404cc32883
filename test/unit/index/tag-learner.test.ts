import assert from 'node:assert/strict';
import { TagLearner, type TaggedText } from '../../../src/index/tag-learner';
import { TagModel } from '../../../src/index/tag-model';
import { analysedText, termCountsOf, termCountsOfMany, type ManyTermCounts, type TermCountsManyTask } from '../../../src/text/term-counts-task';

/**
 * The tag learner's ordering rules, with the pool thread's analysis held back until a test lets it answer (the
 * HTTP tests in test/integration/tag-suggestions.test.ts cannot choose when an analysis returns).
 */
class HeldAnalyses {
  readonly asked: TermCountsManyTask[] = [];
  private readonly waiting: Array<() => void> = [];

  readonly analyse = (task: TermCountsManyTask): Promise<ManyTermCounts> => {
    this.asked.push(task);
    return new Promise((resolve) => this.waiting.push(() => resolve(termCountsOfMany(task))));
  };

  /** Lets the oldest held analysis answer, then lets the learner run until it waits again. */
  answerOldest(): Promise<void> {
    return this.answer(0);
  }

  answerNewest(): Promise<void> {
    return this.answer(-1);
  }

  private async answer(at: number): Promise<void> {
    while (this.waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    this.waiting.splice(at, 1)[0]!();
    await new Promise((resolve) => setImmediate(resolve));
  }

  get held(): number {
    return this.waiting.length;
  }
}

const ENGLISH = [
  'The telescope revealed distant galaxies and a faint nebula near the constellation.',
  'Astronomers measured the orbit of the comet as it approached the sun.',
  'Bake the bread in a hot oven until the crust is golden and crisp.',
  'Simmer the tomato sauce with garlic and basil for twenty minutes.',
];
/** Too short to tell its language: analysed in the hint's (the model's documents' main language). */
const SHORT = 'space shuttle launch';

/** Learnt one after another in process, as the model learnt before the pool did the analysis. */
function learntInOrder(documents: readonly TaggedText[]): TagModel {
  const model = new TagModel();
  for (const d of documents) {
    if (d.text === undefined || d.tags.length === 0) model.removeDocument(d.id);
    else assert.ok(model.learn(d.id, analysedText(termCountsOfMany({ texts: [d.text], languages: model.languageCounts(d.id) }), 0), d.tags));
  }
  return model;
}

const scores = (model: TagModel, text: string) => model.scoreTerms(termCountsOf(model.languageHint === undefined ? { text } : { text, hint: model.languageHint }));

describe('tag learner: texts analysed in the pool, learnt in order', () => {
  const documents: TaggedText[] = [
    ...ENGLISH.map((text, i) => ({ id: `d${i}`, text, tags: [i < 2 ? 'astronomy' : 'cooking'] })),
    { id: 'short', text: SHORT, tags: ['astronomy'] },
  ];

  it('learns a batch as the model learnt each document in turn (the same scores)', async () => {
    const held = new HeldAnalyses();
    const model = new TagModel();
    const learnt = new TagLearner(model, held.analyse).sync(documents);
    await held.answerOldest();
    await learnt;
    const expected = learntInOrder(documents);
    assert.equal(model.documentCount, expected.documentCount);
    assert.equal(model.vocabularySize, expected.vocabularySize);
    for (const text of [SHORT, ENGLISH[0]!, 'garlic bread']) assert.deepEqual(scores(model, text), scores(expected, text));
  });

  it('drops an analysis that returns after the document was removed, synced again or the model cleared', async () => {
    const held = new HeldAnalyses();
    const model = new TagModel();
    const learner = new TagLearner(model, held.analyse);
    await Promise.all([learner.sync(documents), held.answerOldest()]);
    // Retagged then removed while its analysis is under way: it does not come back.
    const retag = learner.sync([{ id: 'd0', text: ENGLISH[0], tags: ['comets'] }]);
    learner.remove(['d0']);
    await held.answerOldest();
    await retag;
    assert.ok(!scores(model, ENGLISH[0]!).some((s) => s.tag === 'comets'));
    // Two syncs of one document under way, the older answering last: the newer holds.
    const first = learner.sync([{ id: 'd1', text: ENGLISH[1], tags: ['old'] }]);
    const second = learner.sync([{ id: 'd1', text: ENGLISH[1], tags: ['new'] }]);
    await held.answerNewest();
    await held.answerOldest();
    await Promise.all([first, second]);
    const tags = scores(model, ENGLISH[1]!).map((s) => s.tag);
    assert.ok(tags.includes('new') && !tags.includes('old'), JSON.stringify(tags));
    // Cleared while a batch is being analysed: nothing of it is learnt.
    const batch = learner.sync(documents);
    learner.clear();
    await held.answerOldest();
    await batch;
    assert.equal(model.documentCount, 0);
    assert.equal(held.held, 0);
  });

  it('learns the model\'s only document again (taking it out empties the model and its languages)', async () => {
    const held = new HeldAnalyses();
    const model = new TagModel();
    const learner = new TagLearner(model, held.analyse);
    // An English text: the model's languages hold English until the document is taken out.
    const only = (tags: string[]) => learner.sync([{ id: 'only', text: ENGLISH[0], tags }]);
    const first = only(['astronomy']);
    await held.answerOldest();
    await first;
    const again = only(['space']);
    await held.answerOldest();
    await again;
    assert.equal(held.asked.length, 2);
    assert.deepEqual(held.asked[1]!.languages, []);
    assert.equal(model.documentCount, 1);
    assert.deepEqual(scores(model, SHORT), scores(learntInOrder([{ id: 'only', text: ENGLISH[0], tags: ['space'] }]), SHORT));
  });

  it('analyses a text again when the hint it was analysed with no longer holds', async () => {
    const held = new HeldAnalyses();
    const model = new TagModel();
    const learner = new TagLearner(model, held.analyse);
    // The short text is analysed first, with no hint (the model is empty); English documents are learnt meanwhile.
    const short = learner.sync([{ id: 'short', text: SHORT, tags: ['astronomy'] }]);
    const english = learner.sync(documents.slice(0, ENGLISH.length));
    await held.answerNewest();
    await english;
    await held.answerOldest();
    assert.equal(held.asked[0]!.languages.length, 0);
    // The short text's analysis came back after the English ones were learnt: asked again with their hint.
    assert.equal(held.asked.length, 3);
    assert.ok(held.asked[2]!.languages.length > 0);
    await held.answerOldest();
    await short;
    const expected = learntInOrder([...documents.slice(0, ENGLISH.length), documents[ENGLISH.length]!]);
    assert.deepEqual(scores(model, SHORT), scores(expected, SHORT));
    assert.equal(model.vocabularySize, expected.vocabularySize);
  });
});
