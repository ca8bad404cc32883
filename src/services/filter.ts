import { KindredError } from '../errors';
import { FilterError, parseFilter, type Filter } from '../index/filter';

/** A request's `filter`, parsed; one that does not parse is the request's fault (400 `filter is invalid: …`). */
export function requestFilter(text: string): Filter {
  try {
    return parseFilter(text);
  } catch (error) {
    if (error instanceof FilterError) throw new KindredError('invalid_filter', `filter is invalid: ${error.message}`);
    throw error;
  }
}
