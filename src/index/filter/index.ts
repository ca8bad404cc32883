export type { Filter, FilterableDocument } from './ast';
export { FilterError } from './errors';
export { parseFilter } from './parse';
export { matches, candidateIds, filterToEsQuery } from './evaluate';
export type { TagPostings } from './evaluate';
