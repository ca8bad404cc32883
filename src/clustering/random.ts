/** mulberry32, shared with the embedding fits: a model trained twice on the same data gives the same clusters. */
export { seededRandom } from '../embedding/random';
