import { sentencesOf, wordTokens } from './text';

/**
 * Extractive summary: the sentences that carry the most salient words (weights from the keyword
 * scorer), favouring the opening of the article, returned in article order.
 */
export function summarise(body: string, wordWeights: Map<string, number>, count = 3): string {
  const sentences: { text: string; index: number; score: number }[] = [];
  const paragraphs = body.split('\n');
  let index = 0;
  for (const paragraph of paragraphs) {
    for (const text of sentencesOf(paragraph)) {
      const tokens = wordTokens(text);
      const i = index++;
      if (tokens.length < 6 || tokens.length > 80 || !/[.!?。！？"”’)]$/.test(text)) continue;
      const distinct = new Set(tokens);
      let weight = 0;
      for (const token of distinct) weight += wordWeights.get(token) ?? 0;
      const position = 1 + 0.8 / (1 + i / 3);
      sentences.push({ text, index: i, score: (weight / Math.sqrt(tokens.length)) * position });
    }
  }
  if (sentences.length === 0) {
    return paragraphs.find((p) => wordTokens(p).length >= 6)?.slice(0, 500) ?? '';
  }
  return sentences
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map((s) => s.text)
    .join(' ');
}
