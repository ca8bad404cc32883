import assert from 'node:assert/strict';
import { clusterWords, documentWords } from '../../../src/clustering/words';
import { nmi, purity } from '../../../src/clustering/metrics';
import { layoutWordCloud, renderWordCloud } from '../../../src/clustering/word-cloud';

describe('clustering/words', () => {
  const texts = [
    'The striker scored a goal in the football match',
    'A late goal won the football final for the team',
    'The goalkeeper saved a penalty in the match',
    'Bake the bread and the cake in the oven',
    'The oven bakes bread with a golden crust',
    'Chocolate cake recipe with butter and sugar, bake in the oven',
  ];
  const assignments = [0, 0, 0, 1, 1, 1];

  it('keeps content words and drops stopwords, short words and duplicates', () => {
    assert.deepEqual([...documentWords('The the football is in a b2 GOAL goal')].sort(), ['football', 'goal']);
  });

  it('ranks words frequent in the cluster and rare elsewhere first, importance in (0, 1]', () => {
    const words = clusterWords(texts.map(documentWords), assignments, 2);
    assert.deepEqual(words[0]!.map((w) => w.word).sort(), ['football', 'goal', 'match']);
    assert.equal(words[1]![0]!.word, 'oven');
    assert.equal(words[1]![0]!.importance, 1);
    assert.deepEqual(words[1]!.map((w) => w.word).sort(), ['bake', 'bread', 'cake', 'oven']);
    for (const list of words) for (const w of list) assert.ok(w.importance > 0 && w.importance <= 1);
    // oven: 3/3 of the cluster vs 3/6 overall scores above bread/cake: 2/3 vs 2/6
    const bread = words[1]!.find((w) => w.word === 'bread')!;
    assert.ok(Math.abs(bread.importance - ((2 / 3) * Math.log(2)) / Math.log(2)) < 1e-3);
  });

  it('gives nothing to an empty cluster and caps the list', () => {
    const words = clusterWords(texts.map(documentWords), assignments, 3, 2);
    assert.deepEqual(words[2], []);
    assert.equal(words[1]!.length, 2);
  });
});

describe('clustering/metrics', () => {
  it('scores a perfect clustering 1 and an uninformative one 0', () => {
    const labels = ['a', 'a', 'b', 'b', 'c', 'c'];
    assert.equal(purity(labels, [2, 2, 0, 0, 1, 1]), 1);
    assert.ok(Math.abs(nmi(labels, [2, 2, 0, 0, 1, 1]) - 1) < 1e-12);
    assert.ok(Math.abs(nmi(labels, [0, 0, 0, 0, 0, 0])) < 1e-12);
    assert.equal(purity(labels, [0, 0, 0, 0, 0, 0]), 2 / 6);
  });

  it('matches a hand-computed NMI', () => {
    // contingency [[2,1],[0,1]]: I = 0.2158, H(L) = H(C) = 0.5623 (nats)
    const value = nmi(['x', 'x', 'y', 'y'], [0, 0, 0, 1]);
    const mi = (2 / 4) * Math.log((4 * 2) / (3 * 2)) + (1 / 4) * Math.log((4 * 1) / (3 * 2)) + (1 / 4) * Math.log((4 * 1) / (1 * 2));
    const hl = Math.log(2);
    const hc = -(3 / 4) * Math.log(3 / 4) - (1 / 4) * Math.log(1 / 4);
    assert.ok(Math.abs(value - mi / ((hl + hc) / 2)) < 1e-12);
  });
});

describe('clustering/word-cloud', () => {
  const words = Array.from({ length: 20 }, (_, i) => ({ word: ['football', 'goal', 'striker', 'championship', 'stadium', 'penalty'][i % 6]! + i, importance: 1 - i * 0.045 }));

  it('places every word inside the canvas with no two boxes overlapping, bigger for more important', () => {
    const placed = layoutWordCloud(words, { width: 640, height: 400 });
    assert.equal(placed.length, words.length);
    for (const p of placed) assert.ok(p.x >= 0 && p.y >= 0 && p.x + p.width <= 640 && p.y + p.height <= 400);
    for (let i = 0; i < placed.length; i++) {
      for (let j = i + 1; j < placed.length; j++) {
        const a = placed[i]!;
        const b = placed[j]!;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        assert.ok(apart, `${a.word} overlaps ${b.word}`);
      }
    }
    for (let i = 1; i < placed.length; i++) assert.ok(placed[i]!.fontSize <= placed[i - 1]!.fontSize);
    assert.ok(placed[0]!.fontSize > placed[placed.length - 1]!.fontSize * 2);
  });

  it('renders escaped SVG text pinned to its box', () => {
    const svg = renderWordCloud([{ word: 'a<b&c', importance: 1 }], 'Cluster "0"');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.includes('>a&#60;b&#38;c</text>'));
    assert.ok(svg.includes('<title>Cluster &#34;0&#34;</title>'));
    assert.match(svg, /textLength="\d+" lengthAdjust="spacingAndGlyphs"/);
  });
});
