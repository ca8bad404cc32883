/** A filter string that does not parse; the HTTP layer answers 400 with `message`. */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  constructor(message: string, readonly position: number) {
    super(message);
  }
}
