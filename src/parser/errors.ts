import { KindredError } from '../errors';

/** Messages the original extraction service answered with. */
export const PARSER_MESSAGES = {
  missingUrl: 'url is missing, url is empty',
  unparsableUrl: 'Unable to parse the URL provided',
  responseError: 'HTTP response error',
  tooLarge: 'Content at URL is too large',
  refusedAddress: 'URL resolves to a private or reserved address',
} as const;

export type ParserErrorCode =
  | 'missing_url'
  | 'unparsable_url'
  | 'response_error'
  | 'bad_status'
  | 'too_large'
  | 'unsupported_content_type'
  | 'refused_address';

/** An extraction failure the caller or the remote site caused: a domain error; the HTTP edge picks its status. */
export class ParserError extends KindredError {
  declare readonly code: ParserErrorCode;

  constructor(code: ParserErrorCode, message: string) {
    super(code, message);
    this.name = 'ParserError';
  }
}

export const missingUrl = (): ParserError => new ParserError('missing_url', PARSER_MESSAGES.missingUrl);
export const unparsableUrl = (): ParserError => new ParserError('unparsable_url', PARSER_MESSAGES.unparsableUrl);
export const responseError = (): ParserError => new ParserError('response_error', PARSER_MESSAGES.responseError);
export const badStatus = (status: number): ParserError =>
  new ParserError('bad_status', `URL responded with a ${status} status code`);
export const tooLarge = (): ParserError => new ParserError('too_large', PARSER_MESSAGES.tooLarge);
export const unsupportedContentType = (type: string): ParserError =>
  new ParserError('unsupported_content_type', `Content-Type ${type} is not supported`);
export const refusedAddress = (): ParserError => new ParserError('refused_address', PARSER_MESSAGES.refusedAddress);
