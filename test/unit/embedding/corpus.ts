import { seededRandom } from '../../../src/random';

/** Synthetic two-topic corpus: each document draws words from its topic's list plus shared filler. */
export const TOPICS: Record<string, string[]> = {
  space: ['orbit', 'rocket', 'launch', 'satellite', 'nasa', 'shuttle', 'moon', 'astronaut', 'payload', 'mission'],
  hockey: ['goal', 'puck', 'team', 'season', 'playoff', 'coach', 'ice', 'player', 'score', 'league'],
  crypto: ['encryption', 'key', 'cipher', 'clipper', 'chip', 'privacy', 'algorithm', 'secure', 'nsa', 'escrow'],
};
const FILLER = ['the', 'and', 'that', 'have', 'with', 'this', 'from', 'about', 'would', 'think', 'there', 'some'];

export function syntheticCorpus(perTopic: number, seed = 7): Array<{ topic: string; text: string }> {
  const rand = seededRandom(seed);
  const pick = (list: string[]): string => list[Math.floor(rand() * list.length)]!;
  const docs: Array<{ topic: string; text: string }> = [];
  for (let i = 0; i < perTopic; i++) {
    for (const [topic, vocab] of Object.entries(TOPICS)) {
      const n = 20 + Math.floor(rand() * 30);
      const ws: string[] = [];
      for (let w = 0; w < n; w++) ws.push(rand() < 0.5 ? pick(vocab) : pick(FILLER));
      docs.push({ topic, text: ws.join(' ') });
    }
  }
  return docs;
}
